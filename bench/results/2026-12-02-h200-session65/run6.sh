#!/usr/bin/env bash
# Session 65, run 6: Nsight Compute on the decode matmul at 16 x 14336 x 4096 with stream-K and with the one-wave
# split forced, and on the few-rows kernel at 1 x 14336 x 4096 (97% of copy in the sweeps): duration, DRAM
# read bandwidth and how busy the memory system is, clocks not locked (build s65b).
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s65b/libtessera.so.xz > $B/libnew.so
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run6; mkdir -p $R
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_read.sum.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,sm__cycles_active.avg,sm__cycles_elapsed.max,launch__grid_size,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
run() {
  local name=$1; shift
  TESSERA_CACHE_DIR=/tmp/tc_n env "$@" timeout 120 ncu --clock-control none --metrics $M -k regex:kernel_entry -c 3 -s 3 \
    python3 bench/profile_matmul.py --lib $B/libnew.so --calls 8 $SHAPE > $R/$name.txt 2>&1
  echo "== $name"; grep -E "kernel_entry|gpu__time|dram__bytes_read.sum |per_second|pct_of_peak|grid_size|cycles_active|elapsed.max|long_score" $R/$name.txt | sed "s/  */ /g" | cut -c1-160 | head -n 30
}
SHAPE="16 14336 4096" run streamk_16 TESSERA_AUTOTUNE_FORCE=matmul:swapab_bw64_bk128_streamk
SHAPE="16 14336 4096" run wave_16 TESSERA_AUTOTUNE_FORCE=matmul:swapab_bw64_bk128_wave
SHAPE="1 14336 4096" run rows_1 TESSERA_AUTOTUNE_FORCE=matmul:rows1_bn4_x2_chunked
date +%T
