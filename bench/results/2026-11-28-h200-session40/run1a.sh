#!/usr/bin/env bash
# Session 40, run 1: mma into fragment accumulators (cuda/fragment_mma.h) in the generic matmul: GPU suite,
# ops check, the generic matmul (odd K) and bmm against the build before, alternated.
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc new/tessera.xz > bin/new_tessera; chmod +x bin/new_tessera
xz -dc new/tessera_gpu_tests.xz > bin/new_tessera_gpu_tests; chmod +x bin/new_tessera_gpu_tests
nvidia-smi -L; date +%T
echo "== GPU suite"
TESSERA_CACHE_DIR=/tmp/tc_suite timeout 280 ./bin/new_tessera_gpu_tests --gtest_brief=1 > $OUT/gpu_suite.log 2>&1; echo "rc $?"
grep -E "FAILED|PASSED|tests ran" $OUT/gpu_suite.log | tail -n 20
echo "== ops check"; date +%T
TESSERA_CACHE_DIR=/tmp/tc_ops timeout 90 ./bin/new_tessera ops check --backend tile-cuda > $OUT/ops_check.log 2>&1; tail -n 1 $OUT/ops_check.log
grep -i fail $OUT/ops_check.log | head
echo "== generic matmul (new)"; date +%T
for dt in bf16 f16; do
  TESSERA_CACHE_DIR=/tmp/tc_new timeout 100 ./bin/new_tessera bench matmul --shapes 4096x4096x4095,2048x2048x2047,1024x1024x1023,128x4096x4095,4096x4096x4096 --dtype $dt --out /tmp/o_new_$dt 2>&1 | sed -n '/^op /,$p' | tail -n 6
done
date +%T
