#!/usr/bin/env bash
# Session 59, run 11: the whole GPU suite on the build of 453cbdf (s59f; later commits are notes).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s59f/tessera_gpu_tests.xz > $B/tessera_gpu_tests; chmod +x $B/tessera_gpu_tests
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run11; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
timeout 500 $B/tessera_gpu_tests --gtest_brief=1 > $R/gpu_suite.log 2>&1
echo "gpu suite rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure" $R/gpu_suite.log | head -n 20
date +%T
