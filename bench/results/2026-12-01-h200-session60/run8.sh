#!/usr/bin/env bash
# Session 60, run 8: the whole GPU suite on build s60c (the tuner's short near-ties, the shared flush buffer, the
# launch's shared-memory allowance; its MLA kernel and tile ops were not kept).
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s60c/tessera_gpu_tests.xz > $B/tessera_gpu_tests; chmod +x $B/tessera_gpu_tests
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run8; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
timeout 500 $B/tessera_gpu_tests --gtest_brief=1 > $R/gpu_suite.log 2>&1
echo "gpu suite rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure" $R/gpu_suite.log | head -n 20
date +%T
