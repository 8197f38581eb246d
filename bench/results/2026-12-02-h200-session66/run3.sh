#!/usr/bin/env bash
# Session 66, run 3: Nsight Compute on decode attention, tessera's tuned kernel (and its merge) against cuDNN's,
# at B 32 x 4k and B 1 x 32k, contiguous cache (run 1: cuDNN reads 10-15% faster than our best layout).
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s65b/libtessera.so.xz > $B/libmain.so || exit 1
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run3; mkdir -p $R
for shape in "32 4096" "1 32768"; do
  n=$(echo $shape | tr ' ' x)
  TESSERA_CACHE_DIR=/tmp/tc3 timeout 200 ncu --profile-from-start off --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
    python3 bench/results/2026-12-02-h200-session66/run3_decode_ncu.py $B/libmain.so $shape > $R/ncu_$n.txt 2>&1
  echo "$n rc $?"; grep -E '^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Memory Throughput|Registers Per|Block Size|Grid Size|Shared Memory Config|Dynamic Shared|Achieved Occupancy|Waves Per|Warp Cycles Per Issued|L2 Hit|Mem Busy|Max Bandwidth' $R/ncu_$n.txt
  date +%T
done
