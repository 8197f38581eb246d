#!/usr/bin/env bash
# Session 60, run 2: the tile, MLA, attention and autotune tests on the GPU, build s60a (short near-ties re-timed
# in bursts; the probabilities' exchange through a spent tile; the shared flush buffer).
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s60a/tessera_gpu_tests.xz > $B/tessera_gpu_tests; chmod +x $B/tessera_gpu_tests
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run2; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
timeout 300 $B/tessera_gpu_tests --gtest_brief=1 --gtest_filter='*ColumnShares*:*Mla*:*MLA*:*mla*:*utotune*:*ttention*:*TileStaged*' > $R/focus.log 2>&1
echo "focus rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure" $R/focus.log | head -n 20
date +%T
