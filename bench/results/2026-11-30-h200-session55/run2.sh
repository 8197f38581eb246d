#!/usr/bin/env bash
# Session 55, run 2: decode attention's producers bring the o projection's weights into L2 once their own
# copies are issued (experiment build s55p: experiment_prefetch.diff; TESSERA_EXP_PREFETCH_O = the fraction of
# the o weights asked for). Batch 1 and 8, prompt 2048, graphs, Llama-3.1-8B shapes, alternated in one binary.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s55p/tessera.xz > $B/tessera; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc; mkdir -p /tmp/tc
export TESSERA_CACHE_DIR=/tmp/tc
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
timeout 150 $M --batch 1 --decode-steps 16 > /dev/null 2>&1
for round in 1 2 3 4; do
  for mode in TESSERA_NONE=1 TESSERA_EXP_PREFETCH_O=1 TESSERA_EXP_PREFETCH_O=0.5 TESSERA_EXP_PREFETCH_O=0.25 TESSERA_LEAVE_OUT=o; do
    env $mode timeout 150 $M --batch 1 --decode-steps 64 > /tmp/bm.log 2>&1
    echo "b1 $mode rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "%s ms", $6}')"
    cat /tmp/bm.log >> $OUT/run2_bench_model.log
  done
done
for round in 1 2; do
  for mode in TESSERA_NONE=1 TESSERA_EXP_PREFETCH_O=1 TESSERA_EXP_PREFETCH_O=0.5; do
    env $mode timeout 150 $M --batch 8 --decode-steps 32 > /tmp/bm.log 2>&1
    echo "b8 $mode rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "%s ms", $6}')"
    cat /tmp/bm.log >> $OUT/run2_bench_model.log
  done
done
TESSERA_EXP_PREFETCH_O=1 timeout 150 $M --batch 1 --decode-steps 32 --prompt-len 32768 2>&1 | grep -E '^[0-9]+ +[0-9]+ ' | awk '{printf "b1 32k prefetch %s ms\n", $6}'
timeout 150 $M --batch 1 --decode-steps 32 --prompt-len 32768 2>&1 | grep -E '^[0-9]+ +[0-9]+ ' | awk '{printf "b1 32k none %s ms\n", $6}'
date +%T
