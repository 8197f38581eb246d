#!/usr/bin/env bash
# Session 53, run 7 (experiment build s53h: 15f8280 + box_rows asking for every box's block table entry of a
# tile before using any, nothing else changed: experiment_block_table_parallel_only.diff) against 15f8280 (s53g,
# `main`), alternated, each with a tuner cache of its own; Llama-3.1-8B shapes, random weights; then decode
# attention (contiguous cache) and MLA decode (pages of 64) alone, tuned, both builds.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s53h/tessera.xz > $B/tessera
xz -dc ../../../.device/s53g/tessera.xz > $B/tessera_main; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc_* /tmp/fd_*
run_as() {  # which (main, table), then the command's arguments
  local m=$1; shift
  mkdir -p /tmp/tc_$m
  local bin=$B/tessera; [ $m = main ] && bin=$B/tessera_main
  TESSERA_CACHE_DIR=/tmp/tc_$m timeout 200 $bin "$@"
}
step() {  # which, label, then flags
  local m=$1 label=$2; shift 2
  run_as $m bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph "$@" > /tmp/bm.log 2>&1
  echo "$m $label rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms; ", $1, $6}')"
  cat /tmp/bm.log >> $OUT/run7_bench_model_$m.log
}
for m in main table; do step $m warm --batch 1,2,8 --decode-steps 8; done
for round in 1 2 3 4; do
  for m in main table; do step $m "b1 2k" --batch 1; done
done
date +%T
for round in 1 2; do
  for m in main table; do step $m "b4,8,32" --batch 4,8,32; done
done
for round in 1 2; do
  for m in main table; do step $m "b1 32k" --batch 1 --prompt-len 32768 --decode-steps 32; done
done
date +%T
for m in main table; do
  run_as $m bench fmha_decode mla_decode --dtype bf16 \
    --shapes 1x2048x32x8x128,1x8192x32x8x128,1x32768x32x8x128,8x8192x32x8x128,32x4096x32x8x128,64x8192x32x8x128,mla_decode:1x32768,mla_decode:64x4096,mla_decode:128x8192 \
    --out /tmp/fd_$m > /tmp/fd.log 2>&1
  echo "decode attention $m rc $?"; grep -E "^\| (fmha_decode|mla_decode)" /tmp/fd_$m/bench.md | awk -F'|' '{printf "%s %s us;", $3, $4} END {print ""}'
  cp /tmp/fd_$m/bench.md $OUT/run7_decode_$m.md
done
date +%T
