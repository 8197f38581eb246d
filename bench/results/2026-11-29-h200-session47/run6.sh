#!/usr/bin/env bash
# Session 47, run 6: run 5's tuner took the unfused form (20.6 us against 20.8 for the fused kernel, timed alone
# after an L2 flush). Which is faster in the batch-1 step? Both forced, alternated, in one binary (run 5's).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s47/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
step() { grep -E '^[0-9]+ +2048' $1 | awk '{printf "b%s %s ms  ", $1, $6}'; }
rm -rf /tmp/tc; mkdir -p /tmp/tc
TESSERA_CACHE_DIR=/tmp/tc timeout 200 $M --batch 1 > /tmp/r.log 2>&1; echo "tuned rc $? $(step /tmp/r.log)"
for round in 1 2 3 4 5 6; do
  for c in rows1_bi2_x2 unfused rows1_bi1_x4; do
    TESSERA_AUTOTUNE_FORCE=qkv_rope_kv_cache_append:$c TESSERA_CACHE_DIR=/tmp/tc timeout 100 $M --batch 1 > /tmp/r.log 2>&1
    echo "$c round $round rc $? $(step /tmp/r.log)"
  done
done
date +%T
