#!/usr/bin/env bash
# Session 52, run 2 (experiment build, experiment_read_once_modes.diff): which part of the read-once load helps:
# TESSERA_EXPERIMENT_HINT picks the weight loads of the one-row kernels at run time: 0 plain, 1 ld.global.nc with
# L1::no_allocate, 2 ld.global with an L2 evict-first policy, 3 both (run 1's build). Each mode with a tuner cache
# of its own; session 51's final build (`old`) as the reference.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s52b/tessera.xz > $B/tessera
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
for m in old 0 1 2 3; do
  run_as $m bench matmul --dtype bf16 --shapes 1x4096x4096,1x14336x4096,1x4096x14336,1x28672x4096,1x128256x4096 \
    --out /tmp/mm_$m > /tmp/mm.log 2>&1
  echo "matmul $m rc $?"; grep -E "^\| matmul" /tmp/mm_$m/bench.md | awk -F'|' '{printf "%s %s;", $3, $4} END {print ""}'
  cp /tmp/mm_$m/bench.md $OUT/run2_matmul_$m.md 2>/dev/null
  run_as $m bench qkv_rope_append --dtype bf16 --out /tmp/q_$m > /tmp/q.log 2>&1
  echo "qkv $m rc $?"; grep "^| qkv" /tmp/q_$m/bench.md | grep -v unfused | awk -F'|' '{printf "%s %s;", $3, $4} END {print ""}'
done
step() {  # mode, label, then flags
  local m=$1 label=$2; shift 2
  run_as $m bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph "$@" > /tmp/bm.log 2>&1
  echo "$m $label rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms; ", $1, $6}')"
  cat /tmp/bm.log >> $OUT/run2_bench_model_$m.log
}
for m in old 0 1 2 3; do step $m warm --batch 1 --decode-steps 8; done
for round in 1 2 3; do
  for m in old 0 1 2 3; do step $m "b1 2k" --batch 1; done
done
for m in old 0 1 2 3; do step $m "b8" --batch 8; done
date +%T
