#!/usr/bin/env bash
# Session 42, run 2: the GPU suite on build/ (sm_90a + sm_80) as dispatched on the H200: the Hopper kernels after
# the tile library's sm_80 changes (sync, tma, wgmma, pipeline), and session 41's 192/128 staged configurations.
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc new/tessera_gpu_tests.xz > bin/tessera_gpu_tests; chmod +x bin/tessera_gpu_tests
nvidia-smi -L; date +%T
TESSERA_CACHE_DIR=/tmp/tc_s timeout 280 ./bin/tessera_gpu_tests --gtest_brief=1 > $OUT/gpu_suite.log 2>&1; echo "rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED" $OUT/gpu_suite.log | tail -n 8
date +%T
