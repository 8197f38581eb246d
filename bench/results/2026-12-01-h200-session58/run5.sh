#!/usr/bin/env bash
# Session 58, run 5: every memory-bound op of issue 3 in `tessera bench` (build s58b, bf16, two rounds), then
# Nsight Compute on the probe's library rope kernel (16384 tokens x 64 heads x 128).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s58b/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run5; mkdir -p $R
for r in 1 2; do
  TESSERA_CACHE_DIR=/tmp/tc_t timeout 200 $B/tessera bench rms_norm rms_norm_residual layer_norm softmax gelu silu_and_mul rope embedding \
    --shapes 16384x8192,4096x4096 --out /tmp/rows_$r > /dev/null 2>&1
  echo "round $r rc $?"; cp /tmp/rows_$r/bench.md $R/rows_bf16_$r.md; grep -E "^\| [a-z]|copy" $R/rows_bf16_$r.md | grep -v "^| op" | cut -d'|' -f2-4,8
done
date +%T
which ncu || ls /usr/local/cuda/bin | grep -i ncu
timeout 200 ncu --kernel-name regex:Rope --launch-skip 3 --launch-count 1 --set full --import-source no \
  .device/probe/row_op_launch_shapes "rope 32 heads 64t mb8 (library) 16384" > $R/ncu_rope.txt 2>&1
echo "ncu rc $?"; grep -E "Duration|Throughput|Registers|Achieved Occupancy|Issue Slots|Warp Cycles Per Issued|Stall|Executed Ipc|Instructions" $R/ncu_rope.txt | head -n 40
date +%T
