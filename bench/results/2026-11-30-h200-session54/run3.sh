#!/usr/bin/env bash
# Session 54, run 3: where a decode step's time goes between the GPU's work: an experiment build (s54x: 815d3bc
# with CUDA events around each step, experiment_step_events.diff) reports per step the GPU time from the
# inputs' copy to the argmax and from the argmax to the next step's inputs (the host's part of a step).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s54x/tessera.xz > $B/tessera; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc; mkdir -p /tmp/tc
export TESSERA_CACHE_DIR=/tmp/tc TESSERA_STEP_EVENTS=1
for round in 1 2; do
  for g in --cuda-graph ""; do
    timeout 150 $B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 \
      $g --batch 1,8 --decode-steps 64 > /tmp/bm.log 2>&1
    echo "${g:-eager} rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms; ", $1, $6}')"
    grep "step events: 64" /tmp/bm.log
    cat /tmp/bm.log >> $OUT/run3_bench_model.log
  done
done
date +%T
