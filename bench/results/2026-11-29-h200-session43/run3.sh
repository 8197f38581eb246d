#!/usr/bin/env bash
# Session 43, run 3: the tuner's flush in 4 KB blocks (about a block's work of overlap for the candidate):
# the engine tuned from an empty cache and with the heuristics, then the matmul sweep.
set -u
cd "$(dirname "$0")"
mkdir -p bin
for f in tessera libtessera.so; do xz -dc r3/$f.xz > bin/$f; chmod +x bin/$f; done
nvidia-smi -L; date +%T
cd ..
M="./.device/bin/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --batch 1,8,32 --cuda-graph"
echo "== bench-model tuned from an empty cache"; date +%T
TESSERA_CACHE_DIR=/tmp/tc_m timeout 200 $M > $OUT/run3_bench_model_tuned.log 2>&1; echo "rc $?"; grep -E "^[0-9]" $OUT/run3_bench_model_tuned.log
echo "== bench-model, heuristics (TESSERA_AUTOTUNE=0)"; date +%T
TESSERA_AUTOTUNE=0 timeout 200 $M > $OUT/run3_bench_model_heuristics.log 2>&1; echo "rc $?"; grep -E "^[0-9]" $OUT/run3_bench_model_heuristics.log
echo "== bench-model tuned, cache reused"; date +%T
TESSERA_CACHE_DIR=/tmp/tc_m timeout 200 $M > $OUT/run3_bench_model_tuned_again.log 2>&1; echo "rc $?"; grep -E "^[0-9]" $OUT/run3_bench_model_tuned_again.log
cp /tmp/tc_m/autotune.json $OUT/run3_autotune_model.json
cd bench
for round in 1 2; do
  echo "== tuned sweep from an empty cache, round $round"; date +%T
  rm -rf /tmp/tc_sweep /tmp/sweep; mkdir -p /tmp/sweep
  TESSERA_CACHE_DIR=/tmp/tc_sweep timeout 200 python3 matmul_bench.py --lib ../.device/bin/libtessera.so --no-glu --out /tmp/sweep > $OUT/run3_matmul_sweep_$round.log 2>&1; echo "rc $?"
  cp /tmp/sweep/matmul_bench.md $OUT/run3_matmul_sweep_$round.md; cp /tmp/tc_sweep/autotune.json $OUT/run3_autotune_sweep_$round.json
  grep -E "median" $OUT/run3_matmul_sweep_$round.log
done
date +%T
