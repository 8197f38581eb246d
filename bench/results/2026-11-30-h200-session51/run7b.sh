#!/usr/bin/env bash
# Session 51, run 7b: the final build (the fused one-row SiLU-and-mul and q/k/v kernels with chunk sums, 5 blocks a
# multiprocessor; the one-row matmul's chunked form offered to the tuner) against session 50's (aa9dcf3, `old`),
# alternated, each with a tuner cache of its own, Llama-3.1-8B shapes with random weights.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s51d/tessera.xz > $B/tessera
xz -dc ../../../.device/s50b/tessera.xz > $B/tessera_old; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc_new /tmp/tc_old /tmp/tc_bench; mkdir -p /tmp/tc_new /tmp/tc_old /tmp/tc_bench
date +%T
step() {  # which binary, label, then flags
  local which=$1 label=$2; shift 2
  local bin=$B/tessera; [ $which = old ] && bin=$B/tessera_old
  TESSERA_CACHE_DIR=/tmp/tc_$which timeout 150 $bin bench-model --model bench/models/llama-3.1-8b --random-weights \
    --device cuda --dtype bf16 --cuda-graph "$@" > /tmp/bm.log 2>&1
  echo "$which $label rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s prompt %s: %s ms a step, %s tok/s; ", $1, $2, $6, $5}')"
  cat /tmp/bm.log >> $OUT/run7b_bench_model_$which.log
}
for w in old new; do step $w warm --batch 1,2,4 --decode-steps 8; done
for round in 1 2 3 4; do
  for w in old new; do step $w "b1 2k" --batch 1; done
done
for round in 1 2; do
  for w in old new; do step $w "b2,4,8" --batch 2,4,8; done
done
for w in old new; do step $w "b1 32k" --batch 1 --prompt-len 32768 --decode-steps 32; done
date +%T
