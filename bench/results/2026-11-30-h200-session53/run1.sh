#!/usr/bin/env bash
# Session 53, run 1 (experiment build s53a: main + ReadOnce's register load as ld.global.L1::evict_first + rms_norm
# asking for its weight before the dependent-launch wait; TESSERA_EXP_NORM_LATE=1 turns the latter off) against
# session 52's committed build (72f748a, `old`), alternated, each with a tuner cache of its own; Llama-3.1-8B
# shapes, random weights; then the decode matmuls alone (M 1 and 16, tuned, against cuBLAS in the same run).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s53a/tessera.xz > $B/tessera
xz -dc ../../../.device/s52d/tessera.xz > $B/tessera_old; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc_* /tmp/mm_*
run_as() {  # mode (old, late, new), then the command's arguments
  local m=$1; shift
  mkdir -p /tmp/tc_$m
  case $m in
    old) TESSERA_CACHE_DIR=/tmp/tc_old timeout 150 $B/tessera_old "$@" ;;
    late) TESSERA_EXP_NORM_LATE=1 TESSERA_CACHE_DIR=/tmp/tc_late timeout 150 $B/tessera "$@" ;;
    new) TESSERA_CACHE_DIR=/tmp/tc_new timeout 150 $B/tessera "$@" ;;
  esac
}
step() {  # mode, label, then flags
  local m=$1 label=$2; shift 2
  run_as $m bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph "$@" > /tmp/bm.log 2>&1
  echo "$m $label rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms; ", $1, $6}')"
  cat /tmp/bm.log >> $OUT/run1_bench_model_$m.log
}
for m in old late new; do step $m warm --batch 1,2,8 --decode-steps 8; done
for round in 1 2 3 4 5; do
  for m in old late new; do step $m "b1 2k" --batch 1; done
done
date +%T
for round in 1 2; do
  for m in old late new; do step $m "b2,4,8" --batch 2,4,8; done
done
for round in 1 2; do
  for m in old late new; do step $m "b32" --batch 32; done
done
for m in old late new; do step $m "b1 32k" --batch 1 --prompt-len 32768 --decode-steps 32; done
date +%T
for m in old new; do
  run_as $m bench matmul --dtype bf16 \
    --shapes 1x4096x4096,1x14336x4096,1x4096x14336,1x28672x4096,1x128256x4096,16x4096x4096,16x14336x4096,16x4096x14336 \
    --out /tmp/mm_$m > /tmp/mm.log 2>&1
  echo "decode matmuls $m rc $?"; grep -E "^\| matmul" /tmp/mm_$m/bench.md | awk -F'|' '{printf "%s %s us %s;", $3, $4, $11} END {print ""}'
  cp /tmp/mm_$m/bench.md $OUT/run1_matmul_$m.md
  run_as $m bench qkv_rope_append --dtype bf16 --shapes qkv_rope_append:4096x32x8x128 --out /tmp/q_$m > /tmp/q.log 2>&1
  echo "qkv $m rc $?"; grep "^| qkv" /tmp/q_$m/bench.md | grep -v unfused | awk -F'|' '{printf "%s %s;", $3, $4} END {print ""}'
done
date +%T
