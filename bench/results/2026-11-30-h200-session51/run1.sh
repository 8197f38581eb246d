#!/usr/bin/env bash
# Session 51, run 1 (the build of the tree at 05:05 UTC: 0c3f2dc plus tile::GroupStream and the _t64 candidates): the few-rows kernels' k loop through tile::GroupStream (no change intended), and two more
# few-rows configurations for 2-4 rows (rows4_bn2_x4_t64, rows4_bn1_x8_t64) offered to the tuner. The matmul at
# 1-4 rows against cuBLAS; Llama-3.1-8B shapes with random weights, session 50's build
# (aa9dcf3, `old`) and this one (`new`) alternated, each with a tuner cache of its own. (The GPU suite
# runs on run 2's build: the two binaries and the tree fill what a run can carry.)
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s51/tessera.xz > $B/tessera
xz -dc ../../../.device/s50b/tessera.xz > $B/tessera_old; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc_new /tmp/tc_old /tmp/tc_bench; mkdir -p /tmp/tc_new /tmp/tc_old /tmp/tc_bench
for round in 1 2; do
  TESSERA_CACHE_DIR=/tmp/tc_bench timeout 200 $B/tessera bench matmul --dtype bf16 \
    --shapes 1x4096x4096,2x4096x4096,3x4096x4096,4x4096x4096,4x6144x4096,4x28672x4096,4x4096x14336,4x14336x4096,4x128256x4096 \
    --out $OUT/bench_rows_$round > $OUT/run1_bench_rows_$round.log 2>&1
  echo "bench round $round rc $?"; cat $OUT/bench_rows_$round/bench.md 2>/dev/null | head -30
done
date +%T
step() {  # which binary, label, then flags
  local which=$1 label=$2; shift 2
  local bin=$B/tessera; [ $which = old ] && bin=$B/tessera_old
  TESSERA_CACHE_DIR=/tmp/tc_$which timeout 150 $bin bench-model --model bench/models/llama-3.1-8b --random-weights \
    --device cuda --dtype bf16 --cuda-graph "$@" > /tmp/bm.log 2>&1
  echo "$which $label rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s prompt %s: %s ms a step, %s tok/s; ", $1, $2, $6, $5}')"
  cat /tmp/bm.log >> $OUT/run1_bench_model_$which.log
}
for w in old new; do step $w warm --batch 1,2,4 --decode-steps 8; done
for round in 1 2 3; do
  for w in old new; do step $w "b1 2k" --batch 1; done
done
for round in 1 2; do
  for w in old new; do step $w "b2,4,8" --batch 2,4,8; done
done
date +%T
