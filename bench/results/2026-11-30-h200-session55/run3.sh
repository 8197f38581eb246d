#!/usr/bin/env bash
# Session 55, run 3: generation inside the context on the GPU (build of 8927b01): the embedded model (512
# positions) with CUDA graphs and without, a smaller --max-context, a chat that leaves turns out; and the batch-1
# step of this build.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s55c/tessera.xz > $B/tessera; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
export TESSERA_CACHE_DIR=/tmp/tc3; rm -rf /tmp/tc3
T=$B/tessera; M=models/tessera-tiny
for g in "" --no-cuda-graph; do
  $T generate --model $M --device cuda --prompt "In the beginning" --max-tokens 2000 --temperature 0 --ignore-eos --print-ids $g > /tmp/g.out 2> /tmp/g.err
  echo "generate cuda $g rc $? ids $(tail -n 1 /tmp/g.out | tr ',' '\n' | wc -l) | $(grep -E 'stopped|prompt' /tmp/g.err | tr '\n' ' ')"
  tail -n 1 /tmp/g.out | md5sum
done
$T generate --model $M --device cpu --prompt "In the beginning" --max-tokens 2000 --temperature 0 --ignore-eos --print-ids 2>/dev/null | tail -n 1 | md5sum
$T generate --model $M --device cuda --prompt "In the beginning" --max-tokens 200 --max-context 40 --temperature 0.8 --seed 3 2>&1 | tail -n 3
printf 'Who made the heaven?\nAnd the earth?\nAnd then what did he do on the seventh day after all of it?\n' | $T chat --model $M --device cuda --max-context 48 --max-tokens 16 --temperature 0 2>&1 | tail -n 8
$T bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1 --decode-steps 16 > /dev/null 2>&1
for r in 1 2 3; do $T bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1,8 --decode-steps 64 2>/dev/null | grep -E '^[0-9]+ +[0-9]+ ' | awk '{printf "batch %s: %s ms, %s tok/s; ", $1, $6, $5} END {print ""}'; done
date +%T
