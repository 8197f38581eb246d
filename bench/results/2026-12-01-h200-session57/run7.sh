#!/usr/bin/env bash
# Session 57, run 7: the build to commit (s57f = run 5's s57e CLI) against main's binary (s56b: the build of ad4c680,
# the code of 78aec3b) on one machine, batch 1 alternated over 4 rounds, a tuner cache each; the copy ceiling
# before and after (the bound: 15.0 GB of weights a token over it).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s57f/tessera.xz > $B/tessera; xz -dc ../../../.device/s56b/tessera.xz > $B/tessera_main; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
copy() { timeout 120 $B/tessera bench embedding --quick --out /tmp/bq > /dev/null 2>&1; grep -o "device-to-device copy [0-9]* GB/s" /tmp/bq/bench.md; }
copy
A="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
rm -rf /tmp/tc_new /tmp/tc_main
TESSERA_CACHE_DIR=/tmp/tc_new timeout 150 $B/tessera $A --batch 1 --decode-steps 16 > /dev/null 2>&1
TESSERA_CACHE_DIR=/tmp/tc_main timeout 150 $B/tessera_main $A --batch 1 --decode-steps 16 > /dev/null 2>&1
for r in 1 2 3 4; do
  for c in new main; do
    bin=tessera; [ $c = main ] && bin=tessera_main
    TESSERA_CACHE_DIR=/tmp/tc_$c timeout 100 $B/$bin $A --batch 1 --decode-steps 64 2>/dev/null | grep -E '^[0-9]+ +[0-9]+ ' | awk -v c="$c" '{printf "%s %s ms; ", c, $6}'
  done
  echo
done
copy
date +%T
