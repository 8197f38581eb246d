#!/usr/bin/env bash
# Session 45, run 4: run 3's prefetch of o_proj's weights, off / on a second stream / on the step's own stream
# (a short kernel that only issues the requests, no fork and join), alternated, one cache tuned first.
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc s45/tessera_new.xz > bin/tessera; chmod +x bin/*
nvidia-smi -L; date +%T
cd ..
M="./.device/bin/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
rm -rf /tmp/tc
TESSERA_L2_PREFETCH=0 TESSERA_CACHE_DIR=/tmp/tc timeout 150 $M --batch 1,4 > $OUT/run4_tuned.log 2>&1
echo "tuned rc $? $(grep -E '^(1|4) ' $OUT/run4_tuned.log | awk '{printf "b%s %s ms  ", $1, $6}')"
for round in 1 2 3 4; do
  for v in off side same; do
    case $v in off) E="TESSERA_L2_PREFETCH=0";; side) E="TESSERA_L2_PREFETCH=1";; same) E="TESSERA_L2_PREFETCH=1 TESSERA_L2_PREFETCH_SAME=1";; esac
    env $E TESSERA_CACHE_DIR=/tmp/tc timeout 100 $M --batch 1,4 > /tmp/r.log 2>&1
    echo "$v round $round rc $? $(grep -E '^(1|4) ' /tmp/r.log | awk '{printf "b%s %s ms  ", $1, $6}')"
  done
done
date +%T
