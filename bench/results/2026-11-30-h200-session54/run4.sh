#!/usr/bin/env bash
# Session 54, run 4: each op's share of a batch-1 decode step, measured by leaving it out (an experiment build,
# s54y: 815d3bc with experiment_leave_out.diff and experiment_step_events.diff; TESSERA_LEAVE_OUT names the
# ops a decode step skips, their outputs keeping earlier values). Llama-3.1-8B shapes, random weights, graphs.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s54y/tessera.xz > $B/tessera; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc; mkdir -p /tmp/tc
export TESSERA_CACHE_DIR=/tmp/tc TESSERA_STEP_EVENTS=1
timeout 150 $B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1 --decode-steps 16 > /dev/null 2>&1
for round in 1 2 3; do
  for out in none norms attention qkv o mlp down norms,attention; do
    TESSERA_LEAVE_OUT=$out timeout 150 $B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 \
      --cuda-graph --batch 1 --decode-steps 64 > /tmp/bm.log 2>&1
    echo "leave out $out rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms; ", $1, $6}') $(grep 'step events: 64' /tmp/bm.log | grep -o 'argmax [0-9.]* us' | head -1)"
    cat /tmp/bm.log >> $OUT/run4_bench_model.log
  done
done
date +%T
