#!/usr/bin/env bash
# Session 57, run 8: the whole GPU suite of the build to commit (s57e).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s57e/tessera_gpu_tests.xz > $B/tessera_gpu_tests; chmod +x $B/tessera_gpu_tests
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc_t
TESSERA_CACHE_DIR=/tmp/tc_t timeout 560 $B/tessera_gpu_tests --gtest_brief=1 > $OUT/run8_gpu_suite.log 2>&1
echo "gpu suite rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure" $OUT/run8_gpu_suite.log | head -n 20
date +%T
