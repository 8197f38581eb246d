#!/usr/bin/env bash
# Session 52, run 1: the one-row kernels' weight loads with the ReadOnce hint (L1 bypassed, evict-first in L2)
# against session 51's final build (da4d380, `old`), alternated, each with a tuner cache of its own:
# the M = 1 projections and the q/k/v kernel alone, then Llama-3.1-8B decode steps with random weights.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s52a/tessera.xz > $B/tessera
xz -dc ../../../.device/s51d/tessera.xz > $B/tessera_old; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc_* /tmp/mm_*; mkdir -p /tmp/tc_new /tmp/tc_old
bin_of() { [ $1 = old ] && echo $B/tessera_old || echo $B/tessera; }
for round in 1 2; do
  for w in old new; do
    TESSERA_CACHE_DIR=/tmp/tc_$w timeout 120 $(bin_of $w) bench matmul --dtype bf16 \
      --shapes 1x4096x4096,1x6144x4096,1x14336x4096,1x4096x14336,1x28672x4096,1x128256x4096 --out /tmp/mm_$w$round > /tmp/mm.log 2>&1
    echo "matmul $w round $round rc $?"; grep -E "^\| *1 *x|^\| matmul" /tmp/mm_$w$round/bench.md | head -8
    cp /tmp/mm_$w$round/bench.md $OUT/run1_matmul_${w}_$round.md 2>/dev/null
    TESSERA_CACHE_DIR=/tmp/tc_$w timeout 100 $(bin_of $w) bench qkv_rope_append --dtype bf16 --out /tmp/q_$w$round > /tmp/q.log 2>&1
    echo "qkv $w round $round rc $?"; grep "^| qkv" /tmp/q_$w$round/bench.md
  done
done
step() {  # which binary, label, then flags
  local which=$1 label=$2; shift 2
  TESSERA_CACHE_DIR=/tmp/tc_$which timeout 150 $(bin_of $which) bench-model --model bench/models/llama-3.1-8b --random-weights \
    --device cuda --dtype bf16 --cuda-graph "$@" > /tmp/bm.log 2>&1
  echo "$which $label rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s prompt %s: %s ms a step, %s tok/s; ", $1, $2, $6, $5}')"
  cat /tmp/bm.log >> $OUT/run1_bench_model_$which.log
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
