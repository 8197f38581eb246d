#!/usr/bin/env bash
# Session 51, run 6 (experiment, not in main: experiment_chunked_fused_rows.diff): the one-row SiLU-and-mul and
# q/k/v + RoPE + append kernels with running chunk sums and 5 blocks a multiprocessor, selected in the
# experiment's binary by TESSERA_EXPERIMENT_CHUNKED=1 under the configurations' usual names. Llama-3.1-8B shapes,
# batch 1, prompt 2048, alternated with the unchanged kernels in the same binary, each with its own tuner cache;
# and qkv_rope_append alone in `tessera bench`.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s51x/tessera.xz > $B/tessera; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
for v in plain chunked; do
  env=""; [ $v = chunked ] && env="TESSERA_EXPERIMENT_CHUNKED=1"
  env $env TESSERA_CACHE_DIR=/tmp/tcq_$v timeout 100 $B/tessera bench qkv_rope_append --dtype bf16 --out /tmp/q_$v > /tmp/q.log 2>&1
  echo "qkv bench $v rc $?"; grep "^| qkv" /tmp/q_$v/bench.md
done
step() {  # variant, label, then flags
  local v=$1 label=$2; shift 2
  local env=""; [ $v = chunked ] && env="TESSERA_EXPERIMENT_CHUNKED=1"
  env $env TESSERA_CACHE_DIR=/tmp/tc_$v timeout 150 $B/tessera bench-model --model bench/models/llama-3.1-8b \
    --random-weights --device cuda --dtype bf16 --cuda-graph "$@" > /tmp/bm.log 2>&1
  echo "$v $label rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s prompt %s: %s ms a step, %s tok/s; ", $1, $2, $6, $5}')"
  cat /tmp/bm.log >> $OUT/run6_bench_model_$v.log
}
for v in plain chunked; do step $v warm --batch 1 --decode-steps 8; done
for round in 1 2 3 4; do
  for v in plain chunked; do step $v "b1 2k" --batch 1; done
done
date +%T
