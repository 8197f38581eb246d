#!/usr/bin/env bash
# Session 47, run 12: after the composed forms (matmul_silu_and_mul's and this op's unfused ones) took their
# backend from one helper (ops/common/this_backend.h): their GPU tests.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s47/tessera_gpu_tests.xz > $B/tessera_gpu_tests; chmod +x $B/tessera_gpu_tests
nvidia-smi -L; date +%T
rm -rf /tmp/tc_t; TESSERA_CACHE_DIR=/tmp/tc_t timeout 240 $B/tessera_gpu_tests --gtest_brief=1 \
  --gtest_filter='*Qkv*:*SiluAndMul*:*EngineGpu*' > $OUT/run12_gpu_tests.log 2>&1; echo "gpu tests rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED|Failure" $OUT/run12_gpu_tests.log | head -n 30
date +%T
