#!/usr/bin/env bash
# Session 43, run 2a: the autotuner times each candidate after a flush kernel it may overlap (as inside a step).
set -u
cd "$(dirname "$0")"
mkdir -p bin
for f in tessera_gpu_tests libtessera.so; do xz -dc new/$f.xz > bin/$f; chmod +x bin/$f; done
nvidia-smi -L; date +%T
echo "== GPU suite"
TESSERA_CACHE_DIR=/tmp/tc_t timeout 330 ./bin/tessera_gpu_tests --gtest_brief=1 > $OUT/run2a_gpu_suite.log 2>&1; echo "rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED|Failure" $OUT/run2a_gpu_suite.log | head -n 20
date +%T
cd ../bench
for round in 1 2; do
  echo "== tuned sweep from an empty cache, round $round"; date +%T
  rm -rf /tmp/tc_sweep /tmp/sweep; mkdir -p /tmp/sweep
  TESSERA_CACHE_DIR=/tmp/tc_sweep timeout 200 python3 matmul_bench.py --lib ../.device/bin/libtessera.so --no-glu --out /tmp/sweep > $OUT/run2a_matmul_sweep_$round.log 2>&1; echo "rc $?"
  cp /tmp/sweep/matmul_bench.md $OUT/run2a_matmul_sweep_$round.md; cp /tmp/sweep/matmul_bench.json $OUT/run2a_matmul_sweep_$round.json
  cp /tmp/tc_sweep/autotune.json $OUT/run2a_autotune_$round.json
  grep -E "median" $OUT/run2a_matmul_sweep_$round.log
done
date +%T
