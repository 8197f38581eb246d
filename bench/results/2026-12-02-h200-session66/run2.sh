#!/usr/bin/env bash
# Session 66, run 2: the engine's decode step with 16-token KV pages (the default) against 64-token pages
# (run 1: decode attention alone 2-4% faster on 64-token pages). Main's build (s65b), Llama-3.1-8B shapes, random
# weights, CUDA graph, prompt 2048, batch 1 / 8 / 32; a tuning cache a page size, alternated.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s65b/tessera.xz > $B/tessera || exit 1; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run2; mkdir -p $R
A="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1,8,32 --decode-steps 32"
for p in 16 64 16 64 16 64; do
  TESSERA_CACHE_DIR=/tmp/tc$p timeout 150 $B/tessera $A --page-size $p > $R/page$p.log 2>&1; echo "page $p rc $?: $(grep -E '^(1|8|32) ' $R/page$p.log | tr -s ' ' | tr '\n' '|')"
  date +%T
done | tee $R/steps.txt
