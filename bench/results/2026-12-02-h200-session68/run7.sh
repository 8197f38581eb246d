#!/usr/bin/env bash
# Session 68, run 7: the engine's decode step (Llama-3.1-8B shapes, random weights, CUDA graph, prompt 2048,
# batch 1 / 8 / 32) with the landing build's command line (s68d), decode attention forced to the copy engine
# (bn64_s3_x2) or to the producer's threads (bn64_s3_x2_threads), alternated three times (a tuning cache each);
# then once with the tuner choosing.
set -u
cd "$(dirname "$0")/../../.."
B=/tmp/bin; mkdir -p $B
xz -dc .device/s68d/tessera.xz > $B/tessera || exit 1; chmod +x $B/tessera
nvidia-smi -L; date +%T
R=$OUT/run7; mkdir -p $R
A="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1,8,32 --decode-steps 32"
for round in 1 2 3; do
  for cfg in bn64_s3_x2 bn64_s3_x2_threads; do
    TESSERA_AUTOTUNE_FORCE=fmha_decode:$cfg TESSERA_CACHE_DIR=/tmp/tc_$cfg timeout 60 $B/tessera $A > /tmp/e.log 2>&1
    echo "round $round $cfg rc $?: $(grep -E '^(1|8|32) ' /tmp/e.log | tr -s ' ' | tr '\n' '|')"
  done
done | tee $R/engine.txt
TESSERA_CACHE_DIR=/tmp/tc_tuned timeout 60 $B/tessera $A > /tmp/e.log 2>&1
echo "tuned rc $?: $(grep -E '^(1|8|32) ' /tmp/e.log | tr -s ' ' | tr '\n' '|')" | tee -a $R/engine.txt
grep -E "^ *batch|^#" /tmp/e.log | head -3 | tee -a $R/engine.txt
date +%T
