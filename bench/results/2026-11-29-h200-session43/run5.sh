#!/usr/bin/env bash
# Session 43, run 5: main as committed (5b07abc, built by CI on a clean clone): GPU suite and the matmul sweep.
set -u
cd "$(dirname "$0")"
mkdir -p bin
for f in tessera_gpu_tests libtessera.so; do xz -dc final/$f.xz > bin/$f; chmod +x bin/$f; done
nvidia-smi -L; date +%T
echo "== GPU suite"
TESSERA_CACHE_DIR=/tmp/tc_t timeout 330 ./bin/tessera_gpu_tests --gtest_brief=1 > $OUT/run5_gpu_suite.log 2>&1; echo "rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED|Failure" $OUT/run5_gpu_suite.log | head -n 20
date +%T
cd ../bench
echo "== tuned sweep from an empty cache"; date +%T
rm -rf /tmp/tc_sweep /tmp/sweep; mkdir -p /tmp/sweep
TESSERA_CACHE_DIR=/tmp/tc_sweep timeout 200 python3 matmul_bench.py --lib ../.device/bin/libtessera.so --no-glu --out /tmp/sweep > $OUT/run5_matmul_sweep.log 2>&1; echo "rc $?"
cp /tmp/sweep/matmul_bench.md $OUT/run5_matmul_sweep.md; cp /tmp/sweep/matmul_bench.json $OUT/run5_matmul_sweep.json; cp /tmp/tc_sweep/autotune.json $OUT/run5_autotune_sweep.json
grep -E "median|^128x4096x4096" $OUT/run5_matmul_sweep.log
date +%T
