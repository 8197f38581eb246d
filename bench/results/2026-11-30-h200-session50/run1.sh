#!/usr/bin/env bash
# Session 50, run 1: decode attention's producer starts before the step's append ends (KvCache::older_tokens_settled,
# set by the engine; TESSERA_DECODE_EARLY_START=0 turns it off). The attention GPU tests, then Llama-3.1-8B shapes
# with random weights, off and on alternated in one binary: batch 1 at prompts 2048 and 32768, batches 8 and 32.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s50/tessera.xz > $B/tessera; xz -dc ../../../.device/s50/gpu_tests.xz > $B/gpu_tests; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
timeout 300 $B/gpu_tests --gtest_filter='AttentionGpu.*' > $OUT/run1_attention_tests.log 2>&1
echo "attention tests rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|tests ran" $OUT/run1_attention_tests.log | head -20; date +%T
export TESSERA_CACHE_DIR=/tmp/tc; rm -rf /tmp/tc; mkdir -p /tmp/tc
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
step() {  # label, then flags
  local label=$1; shift
  timeout 150 $M "$@" > /tmp/bm.log 2>&1
  echo "$label rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s prompt %s: %s ms a step, %s tok/s; ", $1, $2, $6, $5}')"
  cat /tmp/bm.log >> $OUT/run1_bench_model.log
}
step warm --batch 1 --decode-steps 8
TESSERA_DECODE_EARLY_START=0 step warm_off --batch 1 --decode-steps 8
for round in 1 2 3 4; do
  TESSERA_DECODE_EARLY_START=0 step "b1 2k off" --batch 1
  TESSERA_DECODE_EARLY_START=1 step "b1 2k on " --batch 1
done
for round in 1 2; do
  TESSERA_DECODE_EARLY_START=0 step "b1 32k off" --batch 1 --prompt-len 32768 --decode-steps 32
  TESSERA_DECODE_EARLY_START=1 step "b1 32k on " --batch 1 --prompt-len 32768 --decode-steps 32
done
for round in 1 2; do
  TESSERA_DECODE_EARLY_START=0 step "b8,32 off" --batch 8,32
  TESSERA_DECODE_EARLY_START=1 step "b8,32 on " --batch 8,32
done
date +%T
