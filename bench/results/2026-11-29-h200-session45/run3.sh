#!/usr/bin/env bash
# Session 45, run 3: the engine with o_proj's weights prefetched into L2 on a second stream during rope and
# attention (decode steps of 1-4 sequences), A/B in one binary (TESSERA_L2_PREFETCH=0 turns it off), tuned
# once from an empty cache; then the GPU suite.
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc s45/tessera_new.xz > bin/tessera; xz -dc s45/tessera_gpu_tests.xz > bin/tessera_gpu_tests; chmod +x bin/*
nvidia-smi -L; date +%T
cd ..
M="./.device/bin/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
rm -rf /tmp/tc
TESSERA_CACHE_DIR=/tmp/tc timeout 150 $M --batch 1,2,4,8 > $OUT/run3_tuned.log 2>&1
echo "tuned rc $? $(grep -E '^(1|2|4|8) ' $OUT/run3_tuned.log | awk '{printf "b%s %s ms  ", $1, $6}')"
cp /tmp/tc/autotune.json $OUT/run3_autotune.json
date +%T
for round in 1 2 3 4; do
  for pf in 0 1; do
    TESSERA_L2_PREFETCH=$pf TESSERA_CACHE_DIR=/tmp/tc timeout 100 $M --batch 1,4 > /tmp/r.log 2>&1
    echo "prefetch=$pf round $round rc $? $(grep -E '^(1|4) ' /tmp/r.log | awk '{printf "b%s %s ms  ", $1, $6}')"
  done
done
date +%T
echo "== generate (greedy, the same text with and without the prefetch)"
for pf in 0 1; do
  TESSERA_L2_PREFETCH=$pf timeout 60 ./.device/bin/tessera generate --model models/tessera-tiny --prompt "Once upon a time" --max-tokens 40 --device cuda --cuda-graph --temperature 0 > /tmp/g_$pf.txt 2>/dev/null; echo "rc $?"
done
cmp /tmp/g_0.txt /tmp/g_1.txt && echo "same text"; head -c 300 /tmp/g_1.txt; echo
cd .device
TESSERA_CACHE_DIR=/tmp/tc_t timeout 330 ./bin/tessera_gpu_tests --gtest_brief=1 > $OUT/run3_gpu_suite.log 2>&1; echo "gpu suite rc $?"; tail -4 $OUT/run3_gpu_suite.log
date +%T
