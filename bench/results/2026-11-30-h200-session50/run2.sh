#!/usr/bin/env bash
# Session 50, run 2: the one-row projections ask for their first weight tiles before they wait for the kernel before
# them (Options::weights_settled, set by the engine; TESSERA_WEIGHTS_EARLY=0 turns it off), on top of run 1's early
# decode attention. The whole GPU suite, then Llama-3.1-8B shapes with random weights, alternated in one binary:
# both off, decode attention early only (run 1's build), both on.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s50b/tessera.xz > $B/tessera; xz -dc ../../../.device/s50b/gpu_tests.xz > $B/gpu_tests; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
timeout 400 $B/gpu_tests > $OUT/run2_gpu_suite.log 2>&1
echo "gpu suite rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED  \]|tests ran" $OUT/run2_gpu_suite.log | head -20; date +%T
export TESSERA_CACHE_DIR=/tmp/tc; rm -rf /tmp/tc; mkdir -p /tmp/tc
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
step() {  # label, then flags
  local label=$1; shift
  timeout 150 $M "$@" > /tmp/bm.log 2>&1
  echo "$label rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s prompt %s: %s ms a step, %s tok/s; ", $1, $2, $6, $5}')"
  cat /tmp/bm.log >> $OUT/run2_bench_model.log
}
step warm --batch 1 --decode-steps 8
for round in 1 2 3 4; do
  TESSERA_DECODE_EARLY_START=0 TESSERA_WEIGHTS_EARLY=0 step "b1 2k none     " --batch 1
  TESSERA_DECODE_EARLY_START=1 TESSERA_WEIGHTS_EARLY=0 step "b1 2k attention" --batch 1
  TESSERA_DECODE_EARLY_START=1 TESSERA_WEIGHTS_EARLY=1 step "b1 2k both     " --batch 1
done
for round in 1 2; do
  TESSERA_DECODE_EARLY_START=1 TESSERA_WEIGHTS_EARLY=0 step "b1 32k attention" --batch 1 --prompt-len 32768 --decode-steps 32
  TESSERA_DECODE_EARLY_START=1 TESSERA_WEIGHTS_EARLY=1 step "b1 32k both     " --batch 1 --prompt-len 32768 --decode-steps 32
done
for round in 1 2; do
  TESSERA_DECODE_EARLY_START=1 TESSERA_WEIGHTS_EARLY=0 step "b4,8,32 attention" --batch 4,8,32
  TESSERA_DECODE_EARLY_START=1 TESSERA_WEIGHTS_EARLY=1 step "b4,8,32 both     " --batch 4,8,32
done
date +%T
