#!/usr/bin/env bash
# Session 55, run 5: s55c against s55t (run 4) after a 32k prompt, batch 1 and 4, three rounds alternated.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for b in s55c s55t; do xz -dc ../../../.device/$b/tessera.xz > $B/tessera_$b; done; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
M="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --prompt-len 32768 --decode-steps 32"
for b in s55c s55t; do TESSERA_CACHE_DIR=/tmp/tc_$b timeout 150 $B/tessera_$b $M --batch 1 > /dev/null 2>&1; done
for r in 1 2 3; do
  for b in s55c s55t; do
    TESSERA_CACHE_DIR=/tmp/tc_$b timeout 150 $B/tessera_$b $M --batch 1,4 2>/dev/null | grep -E '^[0-9]+ +[0-9]+ ' | awk -v b=$b '{printf "%s batch %s: %s ms; ", b, $1, $6} END {print ""}'
  done
done
date +%T
