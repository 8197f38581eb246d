#!/usr/bin/env bash
# Session 48, run 5: run 4's profile of decode attention at B 1 x 32k for the two-block configurations (forced):
# the sliced kernel with 2-tile splits, and 32-key tiles in six stages. Are they bound by the consumer too?
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s48/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
for c in sliced_bn64_s3_x2_short bn32_s6_x2 bn64_s4; do
  export TESSERA_AUTOTUNE_FORCE=fmha_decode:$c
  timeout 60 $B/tessera bench fmha_decode --shapes 1x32768x32x8x128 --out /tmp/bo > /tmp/b.log 2>&1; echo "bench $c rc $?"
  grep -E "fmha_decode +B" /tmp/b.log | tail -1
  timeout 200 ncu --clock-control none --set full --kernel-name-base demangled --kernel-name regex:FmhaDecode --launch-skip 10 --launch-count 1 \
    $B/tessera bench fmha_decode --shapes 1x32768x32x8x128 --out /tmp/bq > $OUT/run5_ncu_$c.txt 2>&1; echo "ncu $c rc $?"
  grep -E "^  void|Duration|DRAM Throughput|Issue Slots Busy|No Eligible|Grid Size|Registers Per|L2 Hit Rate|Mem Busy|Warp Cycles Per Issued|Achieved Occupancy" $OUT/run5_ncu_$c.txt | head -14
done
date +%T
