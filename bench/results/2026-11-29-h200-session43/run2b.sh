#!/usr/bin/env bash
# Session 43, run 2b: the engine with the new tuner timings (Llama-3.1-8B shapes, random weights), tuned from
# an empty cache, then with the heuristics (TESSERA_AUTOTUNE=0) for reference.
set -u
cd "$(dirname "$0")"
mkdir -p bin
for f in tessera; do xz -dc cli/$f.xz > bin/$f; chmod +x bin/$f; done
nvidia-smi -L; date +%T
cd ..
for run in 1 2; do
  echo "== bench-model tuned (cache from run 1 reused in run 2)"; date +%T
  TESSERA_CACHE_DIR=/tmp/tc_m timeout 200 ./.device/bin/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --batch 1,8,32 --cuda-graph > $OUT/run2b_bench_model_$run.log 2>&1; echo "rc $?"
  grep -E "^[0-9]" $OUT/run2b_bench_model_$run.log
done
cp /tmp/tc_m/autotune.json $OUT/run2b_autotune.json
date +%T
