#!/usr/bin/env bash
# Session 44, run 2c: more alternated pairs of run 2b's A/B (batch 8 and 32; the caches run 2b tuned, the old
# one with the GLU at 8 and 32 rows on the unfused pair).
set -u
cd "$(dirname "$0")"
mkdir -p bin /tmp/tc_new /tmp/tc_old
xz -dc r2/tessera.xz > bin/tessera; chmod +x bin/tessera
cp r2c/new.json /tmp/tc_new/autotune.json; cp r2c/old.json /tmp/tc_old/autotune.json
nvidia-smi -L; date +%T
cd ..
M="./.device/bin/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --batch 8,32 --cuda-graph"
for round in 1 2 3 4 5 6; do
  for which in old new; do
    TESSERA_CACHE_DIR=/tmp/tc_$which timeout 100 $M > $OUT/run2c_${which}_$round.log 2>&1; echo "$which $round rc $? $(grep -E '^(8|32) ' $OUT/run2c_${which}_$round.log | awk '{printf "b%s %s ms  ", $1, $6}')"
  done
done
date +%T
