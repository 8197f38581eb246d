#!/usr/bin/env bash
# Session 59, run 1 (main's build, da9708c): where decode attention's fixed ~15 us a call goes.
# fmha_decode over a sweep of batch x keys (time against bytes), each candidate forced at B 8 x 8k, and the
# kernels' own durations under Nsight Compute (decode kernel and merge, serialised).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s59a/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T; which nsys ncu
cd ../../..
R=$OUT/run1; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
S=8x8192x32x8x128,32x4096x32x8x128,1x32768x32x8x128,8x4096x32x8x128,8x16384x32x8x128,8x32768x32x8x128,16x8192x32x8x128,64x8192x32x8x128,4x8192x32x8x128
timeout 200 $B/tessera bench fmha_decode --shapes $S --out /tmp/d1 > /dev/null 2>&1; echo "sweep rc $?"
cp /tmp/d1/bench.md $R/sweep.md; grep -E "^\| fmha|copy" $R/sweep.md | cut -d'|' -f3,4,8
cp $TESSERA_CACHE_DIR/autotune.json $R/autotune_sweep.json 2>/dev/null
for c in sliced_bn64_s3_x2 sliced_bn64_s3_x2_short sliced_bn64_s4 bn64_s3_x2 bn64_s4 bn32_s6_x2 bn32_s6_x2_short; do
  TESSERA_AUTOTUNE_FORCE=fmha_decode:$c timeout 60 $B/tessera bench fmha_decode --shapes 8x8192x32x8x128,32x4096x32x8x128 --out /tmp/d2 > /dev/null 2>&1
  echo "$c rc $?: $(grep -E '^\| fmha' /tmp/d2/bench.md | cut -d'|' -f4,8 | tr '\n' ' ')"
done
date +%T
ncu --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active \
  --launch-skip 40 --launch-count 6 $B/tessera bench fmha_decode --shapes 8x8192x32x8x128 --quick --out /tmp/d3 > $R/ncu_b8.log 2>&1
echo "ncu rc $?"; grep -E "^  [a-zA-Z_]|gpu__time|dram__|grid_size|warps_active" $R/ncu_b8.log | head -40
ncu --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size \
  --launch-skip 40 --launch-count 4 $B/tessera bench fmha_decode --shapes 32x4096x32x8x128 --quick --out /tmp/d4 > $R/ncu_b32.log 2>&1
echo "ncu rc $?"; grep -E "^  [a-zA-Z_]|gpu__time|dram__|grid_size" $R/ncu_b32.log | head -24
date +%T
