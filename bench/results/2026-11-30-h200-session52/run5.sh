#!/usr/bin/env bash
# Session 52, run 5 (experiment build s52e, experiment_read_once_l1.diff): which register load the one-row
# kernels' ReadOnce weights should use, compiled four ways and picked per launch by TESSERA_EXPERIMENT_HINT:
# 1 ld.global.nc.L1::no_allocate (main, 72f748a), 4 ld.global.L1::no_allocate, 5 ld.global.L1::evict_first,
# 6 ld.global.nc.L1::evict_first; session 51's build (`old`, plain loads) as the reference. Each with a tuner cache
# of its own; the M = 1 projections alone, then Llama-3.1-8B batch-1 steps alternated.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s52e/tessera.xz > $B/tessera
xz -dc ../../../.device/s51d/tessera.xz > $B/tessera_old; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc_* /tmp/mm_*
run_as() {  # mode (or old), then the command's arguments
  local m=$1; shift
  mkdir -p /tmp/tc_$m
  if [ $m = old ]; then TESSERA_CACHE_DIR=/tmp/tc_old $B/tessera_old "$@"
  else TESSERA_EXPERIMENT_HINT=$m TESSERA_CACHE_DIR=/tmp/tc_$m $B/tessera "$@"; fi
}
for m in old 1 4 5 6; do
  run_as $m bench matmul --dtype bf16 --shapes 1x4096x4096,1x14336x4096,1x4096x14336,1x28672x4096,1x128256x4096 \
    --out /tmp/mm_$m > /tmp/mm.log 2>&1
  echo "matmul $m rc $?"; grep -E "^\| matmul" /tmp/mm_$m/bench.md | awk -F'|' '{printf "%s %s;", $3, $4} END {print ""}'
  run_as $m bench qkv_rope_append --dtype bf16 --shapes qkv_rope_append:4096x32x8x128 --out /tmp/q_$m > /tmp/q.log 2>&1
  echo "qkv $m rc $?"; grep "^| qkv" /tmp/q_$m/bench.md | grep -v unfused | awk -F'|' '{printf "%s %s;", $3, $4} END {print ""}'
done
step() {  # mode, label, then flags
  local m=$1 label=$2; shift 2
  run_as $m bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph "$@" > /tmp/bm.log 2>&1
  echo "$m $label rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms; ", $1, $6}')"
}
for m in old 1 4 5 6; do step $m warm --batch 1 --decode-steps 8; done
for round in 1 2 3 4; do
  for m in old 1 4 5 6; do step $m "b1 2k" --batch 1; done
done
date +%T
