#!/usr/bin/env bash
# Session 59, run 10: issue 5's batch-1 bound with the bench's new lead: the copy ceiling (`tessera bench`,
# 1 GiB copies) before and after three batch-1 decode runs of Llama-3.1-8B shapes (random weights, CUDA graph),
# then batch 8 and 32 once. Build s59f (main at 453cbdf).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s59f/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run10; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
ceiling() { timeout 60 $B/tessera bench rms_norm --shapes 1x4096 --out /tmp/c > /dev/null 2>&1; grep -E "^Ceilings" /tmp/c/bench.md | cut -c1-80; }
ceiling
A="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
for r in 1 2 3; do
  timeout 200 $B/tessera $A --batch 1 --decode-steps 64 > $R/engine_b1_$r.log 2>&1; echo "b1 round $r rc $?"
  grep -E '^[0-9]+ +[0-9]+ |prefill|tokens' $R/engine_b1_$r.log | tail -n 3
done
ceiling
timeout 250 $B/tessera $A --batch 8,32 --decode-steps 32 > $R/engine_b8_32.log 2>&1; echo "b8/32 rc $?"
grep -E '^[0-9]+ +[0-9]+ |prefill|tokens' $R/engine_b8_32.log | tail -n 4
date +%T
