#!/usr/bin/env bash
# Session 61, run 5: build s61e (the landed code): the engine's step at Llama-3.1-8B shapes (random weights,
# CUDA graph, fresh tuning), batch 1 twice and batch 8 / 16 / 32, as a check that the tile-library and flush
# changes moved nothing in the model step (session 60: b1 4.232-4.269 ms, b8 5.59-5.61, b16 6.15-6.21, b32 7.65-7.71).
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s61e/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run5; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
A="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
for r in 1 2; do
  timeout 150 $B/tessera $A --batch 1 --decode-steps 64 > $R/b1_$r.log 2>&1; echo "b1 $r rc $?: $(grep -E '^1 ' $R/b1_$r.log)"
done
timeout 150 $B/tessera $A --batch 8,16,32 --decode-steps 32 > $R/b8_32.log 2>&1; echo "b8-32 rc $?"
grep -E '^(8|16|32) ' $R/b8_32.log
date +%T
