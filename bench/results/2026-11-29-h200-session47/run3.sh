#!/usr/bin/env bash
# Session 47, run 3: Nsight Compute (full set, the GPU's own clocks) on the kernels of one layer's attention in a
# batch-1 decode step at a 2048-token prompt: rope + KV append, decode attention, the split merge. The tuner's
# cache is filled by a plain run first.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s47/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
export TESSERA_CACHE_DIR=/tmp/tc
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --batch 1"
timeout 120 $M --decode-steps 8 > $OUT/run3_plain.log 2>&1; echo "plain rc $?"; grep -E "^1 " $OUT/run3_plain.log
grep -o '"fmha_decode[^"]*"[^}]*"choice": "[^"]*"' /tmp/tc/autotune.json | head
for k in RopeKvCacheAppend FmhaDecodeStaged DecodeMerge; do
  timeout 200 ncu --clock-control none --set full --kernel-name-base demangled --kernel-name regex:$k --launch-skip 40 --launch-count 1 \
    $M --decode-steps 2 --prompt-len 2048 > $OUT/run3_ncu_$k.txt 2>&1; echo "ncu $k rc $?"
  grep -E "Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Grid Size|Block Size|Elapsed Cycles" $OUT/run3_ncu_$k.txt | head -12
done
cp /tmp/tc/autotune.json $OUT/run3_autotune.json
date +%T
