#!/usr/bin/env bash
# Session 52, run 4b: the committed build (72f748a: ReadOnce loads in the decode kernels) against session 51's
# final build (da4d380, `old`), alternated, each with a tuner cache of its own; Llama-3.1-8B shapes, random
# weights; then issue 3's decode matmul shapes (M 1 and 16, tuned, against cuBLAS in the same run) on both.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s52d/tessera.xz > $B/tessera
xz -dc ../../../.device/s51d/tessera.xz > $B/tessera_old; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc_*; mkdir -p /tmp/tc_new /tmp/tc_old
step() {  # which binary, label, then flags
  local which=$1 label=$2; shift 2
  local bin=$B/tessera; [ $which = old ] && bin=$B/tessera_old
  TESSERA_CACHE_DIR=/tmp/tc_$which timeout 150 $bin bench-model --model bench/models/llama-3.1-8b --random-weights \
    --device cuda --dtype bf16 --cuda-graph "$@" > /tmp/bm.log 2>&1
  echo "$which $label rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms, %s tok/s, prefill %s tok/s; ", $1, $6, $5, $4}')"
  cat /tmp/bm.log >> $OUT/run4b_bench_model_$which.log
}
for w in old new; do step $w warm --batch 1,2,8 --decode-steps 8; done
for round in 1 2 3 4; do
  for w in old new; do step $w "b1 2k" --batch 1; done
done
for round in 1 2; do
  for w in old new; do step $w "b2,4,8" --batch 2,4,8; done
done
for round in 1 2; do
  for w in old new; do step $w "b32" --batch 32; done
done
for w in old new; do step $w "b1 32k" --batch 1 --prompt-len 32768 --decode-steps 32; done
date +%T
for w in old new; do
  bin=$B/tessera; [ $w = old ] && bin=$B/tessera_old
  TESSERA_CACHE_DIR=/tmp/tc_$w timeout 150 $bin bench matmul --dtype bf16 \
    --shapes 1x4096x4096,1x14336x4096,1x4096x14336,1x128256x4096,16x4096x4096,16x14336x4096,16x4096x14336,16x128256x4096 \
    --out /tmp/mm_$w > /tmp/mm.log 2>&1
  echo "decode matmuls $w rc $?"; grep -E "^\| matmul" /tmp/mm_$w/bench.md | awk -F'|' '{printf "%s %s us %s;", $3, $4, $11} END {print ""}'
  cp /tmp/mm_$w/bench.md $OUT/run4b_matmul_$w.md
done
date +%T
