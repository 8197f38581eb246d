#!/usr/bin/env bash
# Session 60, run 6: build s60c (MLA decode's scores in k shares, the probabilities through the shared exchange
# buffer as before, not through R_j; the launch allows static + dynamic shared memory past 48 KB): the tile,
# MLA and attention tests on the GPU.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s60c/tessera_gpu_tests.xz > $B/tessera_gpu_tests; chmod +x $B/tessera_gpu_tests
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run6; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
timeout 200 $B/tessera_gpu_tests --gtest_brief=1 --gtest_filter='*ColumnShares*:*Mla*:*MLA*:*mla*:*TileStaged*' > $R/focus.log 2>&1
echo "focus rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure" $R/focus.log | head -n 20
date +%T
