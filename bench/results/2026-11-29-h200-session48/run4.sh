#!/usr/bin/env bash
# Session 48, run 4: decode attention at B 1 x 32k (issue 4's 1.3x-cuDNN shape), the committed build: what bounds
# the split kernel there? Nsight Compute (full set, the GPU's own clocks) on one tuned call of the bench row, and
# on the merge after it.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s48/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
export TESSERA_CACHE_DIR=/tmp/tc
timeout 100 $B/tessera bench fmha_decode --shapes 1x32768x32x8x128 --out /tmp/bo > $OUT/run4_bench.log 2>&1; echo "bench rc $?"
grep -E "fmha_decode +B" $OUT/run4_bench.log; grep -o '"choice": "[^"]*"' /tmp/tc/autotune.json | head -3
for k in FmhaDecode DecodeMerge; do
  timeout 200 ncu --clock-control none --set full --kernel-name-base demangled --kernel-name regex:$k --launch-skip 10 --launch-count 1 \
    $B/tessera bench fmha_decode --shapes 1x32768x32x8x128 --out /tmp/bq > $OUT/run4_ncu_$k.txt 2>&1; echo "ncu $k rc $?"
  grep -E "^  [A-Za-z].*(Fmha|Decode)|Duration|DRAM Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Grid Size|Block Size|Elapsed Cycles|Issue Slots Busy|No Eligible" $OUT/run4_ncu_$k.txt | head -16
done
date +%T
