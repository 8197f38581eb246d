#!/usr/bin/env bash
# Session 40, run 3 (final build): GPU suite as dispatched on the H200 and with TESSERA_HOPPER=0 (the generic
# kernels sm_80 / sm_89 run), ops check, the generic matmul (aligned rows with TESSERA_HOPPER=0, odd K as is).
set -u
cd "$(dirname "$0")"
mkdir -p bin
for f in tessera tessera_gpu_tests; do xz -dc new/$f.xz > bin/$f; chmod +x bin/$f; done
nvidia-smi -L; date +%T
echo "== GPU suite"
TESSERA_CACHE_DIR=/tmp/tc_s timeout 280 ./bin/tessera_gpu_tests --gtest_brief=1 > $OUT/gpu_suite.log 2>&1; echo "rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED" $OUT/gpu_suite.log | tail -n 8
echo "== GPU suite, TESSERA_HOPPER=0"; date +%T
TESSERA_HOPPER=0 TESSERA_CACHE_DIR=/tmp/tc_g timeout 280 ./bin/tessera_gpu_tests --gtest_brief=1 > $OUT/gpu_suite_generic.log 2>&1; echo "rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED" $OUT/gpu_suite_generic.log | tail -n 12
echo "== ops check"; date +%T
TESSERA_CACHE_DIR=/tmp/tc_o timeout 90 ./bin/tessera ops check --backend tile-cuda > $OUT/ops_check.log 2>&1; tail -n 1 $OUT/ops_check.log
echo "== matmul, TESSERA_HOPPER=0 (aligned) and odd K"; date +%T
TESSERA_HOPPER=0 TESSERA_CACHE_DIR=/tmp/tc_g timeout 120 ./bin/tessera bench matmul --shapes 4096x4096x4096,2048x2048x2048,1024x1024x1024,128x4096x4096 --dtype bf16 --out /tmp/m > /tmp/m.log 2>&1
grep -E "^matmul" /tmp/m.log | head -4; cp /tmp/m/bench.md $OUT/matmul_generic_aligned_bf16.md
TESSERA_CACHE_DIR=/tmp/tc_s timeout 120 ./bin/tessera bench matmul --shapes 4096x4096x4095,2048x2048x2047,1024x1024x1023,128x4096x4095 --dtype bf16 --out /tmp/o > /tmp/o.log 2>&1
grep -E "^matmul" /tmp/o.log | head -4; cp /tmp/o/bench.md $OUT/matmul_generic_odd_k_bf16.md
date +%T
