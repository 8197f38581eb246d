#!/usr/bin/env bash
# Session 67, run 1: main before session 66 (s65b: every paged copy box by box) against this session's build (s67a:
# decode attention's and MLA's copies panel by panel through load_row_boxes_async), both command lines alternated
# three times: `tessera bench` on mla_decode (128 heads: compute-bound; 16 heads: memory-bound) and fmha_decode
# (GQA 32/8, D 128), then the engine's decode step (Llama-3.1-8B shapes, random weights, CUDA graph, prompt
# 2048, batch 1 / 8 / 32). A tuning cache a build.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s65b/tessera.xz > $B/old || exit 1
xz -dc ../../../.device/s67a/tessera.xz > $B/new || exit 1
chmod +x $B/old $B/new
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run1; mkdir -p $R
S="mla_decode:64x8192 mla_decode:64x8192x16 mla_decode:128x4096 32x4096x32x8x128 64x8192x32x8x128 1x32768x32x8x128"
for round in 1 2 3; do
  for v in old new; do
    TESSERA_CACHE_DIR=/tmp/tc_$v timeout 150 $B/$v bench mla_decode fmha_decode --shapes $S --out /tmp/bo_$v > $R/bench_${v}_$round.log 2>&1
    echo "round $round $v rc $?"; grep -E "^\| (mla_decode|fmha_decode)" /tmp/bo_$v/bench.md | cut -c1-200
    date +%T
  done
done | tee $R/ops.txt
A="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1,8,32 --decode-steps 32"
for round in 1 2 3; do
  for v in old new; do
    TESSERA_CACHE_DIR=/tmp/tc_$v timeout 150 $B/$v $A > $R/engine_${v}_$round.log 2>&1
    echo "round $round $v rc $?: $(grep -E '^(1|8|32) ' $R/engine_${v}_$round.log | tr -s ' ' | tr '\n' '|')"
    date +%T
  done
done | tee $R/engine.txt
