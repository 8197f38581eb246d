#!/usr/bin/env bash
# Session 54, run 1: the build of this session (s54a: a step's inputs in one queued copy from page-locked memory,
# the embedding inside the decode graph, the result read back after the step's stream only; MLA decode reading a
# tile's block table entries at once) against main a03f9c5 (s54base), alternated, each with a tuner cache of its
# own; Llama-3.1-8B shapes, random weights; then MLA decode and decode attention alone, tuned, both builds.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s54a/tessera.xz > $B/tessera
xz -dc ../../../.device/s54base/tessera.xz > $B/tessera_main; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc_* /tmp/fd_*
run_as() {  # which (main, new), then the command's arguments
  local m=$1; shift
  mkdir -p /tmp/tc_$m
  local bin=$B/tessera; [ $m = main ] && bin=$B/tessera_main
  TESSERA_CACHE_DIR=/tmp/tc_$m timeout 200 $bin "$@"
}
step() {  # which, label, then flags
  local m=$1 label=$2; shift 2
  run_as $m bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 "$@" > /tmp/bm.log 2>&1
  echo "$m $label rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms; ", $1, $6}')"
  cat /tmp/bm.log >> $OUT/run1_bench_model_$m.log
}
for m in main new; do step $m warm --cuda-graph --batch 1,2,8 --decode-steps 8; done
for round in 1 2 3 4; do
  for m in main new; do step $m "b1 2k graph" --cuda-graph --batch 1; done
done
date +%T
for round in 1 2; do
  for m in main new; do step $m "b1 2k eager" --batch 1; done
done
for round in 1 2; do
  for m in main new; do step $m "b8,32 graph" --cuda-graph --batch 8,32; done
done
date +%T
for m in main new; do
  run_as $m bench mla_decode fmha_decode --dtype bf16 \
    --shapes mla_decode:1x32768,mla_decode:64x4096,mla_decode:64x16384,mla_decode:64x32768,mla_decode:128x4096,mla_decode:128x8192,mla_decode:128x32768,1x2048x32x8x128,1x32768x32x8x128,32x4096x32x8x128 \
    --out /tmp/fd_$m > /tmp/fd.log 2>&1
  echo "decode attention $m rc $?"; grep -E "^\| (fmha_decode|mla_decode)" /tmp/fd_$m/bench.md | awk -F'|' '{printf "%s %s us;", $3, $4} END {print ""}'
  cp /tmp/fd_$m/bench.md $OUT/run1_decode_$m.md
done
date +%T
