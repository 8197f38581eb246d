#!/usr/bin/env bash
# Session 41, run 2: generic prefill on fragment accumulators (64 query rows, q and p as register A operands).
# GPU suite as dispatched and with TESSERA_HOPPER=0; the prefill bench with TESSERA_HOPPER=0 (generic kernels).
set -u
cd "$(dirname "$0")"
mkdir -p bin
for f in tessera_gpu_tests libtessera.so; do xz -dc new/$f.xz > bin/$f; done; chmod +x bin/tessera_gpu_tests
nvidia-smi -L; date +%T
echo "== GPU suite"
TESSERA_CACHE_DIR=/tmp/tc_s timeout 280 ./bin/tessera_gpu_tests --gtest_brief=1 > $OUT/gpu_suite.log 2>&1; echo "rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED" $OUT/gpu_suite.log | tail -n 8
echo "== GPU suite, TESSERA_HOPPER=0"; date +%T
TESSERA_HOPPER=0 TESSERA_CACHE_DIR=/tmp/tc_g timeout 250 ./bin/tessera_gpu_tests --gtest_brief=1 > $OUT/gpu_suite_hopper0.log 2>&1; echo "rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED" $OUT/gpu_suite_hopper0.log | tail -n 12
echo "== prefill, generic kernels (TESSERA_HOPPER=0)"; date +%T
cd ../bench
TESSERA_HOPPER=0 TESSERA_CACHE_DIR=/tmp/tc_b timeout 150 python3 gpu_bench.py --lib ../.device/bin/libtessera.so --prefill-only --head-dims 64,128,192 --out /tmp/pg > $OUT/prefill_generic.log 2>&1; echo "rc $?"
grep -E "^fmha" $OUT/prefill_generic.log
date +%T
