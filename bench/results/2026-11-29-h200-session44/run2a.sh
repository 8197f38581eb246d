#!/usr/bin/env bash
# Session 44, run 2a: the GLU swap-AB with the one-wave split (and the autotuner's retune of a grown
# configuration space): GPU suite, then matmul_silu_and_mul tuned from an empty cache.
set -u
cd "$(dirname "$0")"
mkdir -p bin
for f in tessera_gpu_tests libtessera.so; do xz -dc r2/$f.xz > bin/$f; chmod +x bin/$f; done
nvidia-smi -L; date +%T
echo "== GPU suite"
TESSERA_CACHE_DIR=/tmp/tc_t timeout 330 ./bin/tessera_gpu_tests --gtest_brief=1 > $OUT/run2a_gpu_suite.log 2>&1; echo "rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED|Failure" $OUT/run2a_gpu_suite.log | head -n 30
date +%T
cd ../bench
for round in 1 2; do
  echo "== matmul_silu_and_mul tuned from an empty cache, round $round"; date +%T
  rm -rf /tmp/tc_glu /tmp/glu; mkdir -p /tmp/glu
  TESSERA_CACHE_DIR=/tmp/tc_glu timeout 150 python3 matmul_bench.py --lib ../.device/bin/libtessera.so --glu-only --out /tmp/glu > $OUT/run2a_glu_$round.log 2>&1; echo "rc $?"
  cat $OUT/run2a_glu_$round.log; cp /tmp/tc_glu/autotune.json $OUT/run2a_autotune_glu_$round.json
done
date +%T
