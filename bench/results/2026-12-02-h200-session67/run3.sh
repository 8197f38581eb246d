#!/usr/bin/env bash
# Session 67, run 3: Nsight Compute on decode attention as landed (s67b: K and V copied panel by panel) against
# cuDNN's kernel, B 32 x 4k and B 1 x 32k, contiguous cache: session 66's run 3 (box by box: 75.2% of DRAM
# bandwidth, L2 hit rate 25.9%; cuDNN 85.9%, 0.85%) again, to see what the copy order changed.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s67b/libtessera.so.xz > $B/libtessera.so || exit 1
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run3; mkdir -p $R
for shape in "32 4096" "1 32768"; do
  n=$(echo $shape | tr ' ' x)
  TESSERA_CACHE_DIR=/tmp/tc3 timeout 200 ncu --profile-from-start off --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
    python3 bench/results/2026-12-02-h200-session66/run3_decode_ncu.py $B/libtessera.so $shape > $R/ncu_$n.txt 2>&1
  echo "$n rc $?"; grep -E '^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Memory Throughput|Registers Per|Block Size|Grid Size|Dynamic Shared|Achieved Occupancy|L2 Hit|Mem Busy|Max Bandwidth' $R/ncu_$n.txt
  date +%T
done
