#!/usr/bin/env bash
# Session 61, run 1: build s61b (mla_decode with the first consumer scoring alone: tile/solo.h): the solo,
# column-share, attention and MLA GPU tests, then mla_decode once.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s61b/tessera_gpu_tests.xz > $B/tests_b; chmod +x $B/tests_b
xz -dc ../../../.device/s61b/tessera.xz > $B/tessera_b; chmod +x $B/tessera_b
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run1; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
timeout 200 $B/tests_b --gtest_brief=1 --gtest_filter='*Solo*:*Mla*:*MLA*:*mla*:*ColumnShares*:AttentionGpu.*' > $R/focus.log 2>&1
echo "focus rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure|rror" $R/focus.log | head -n 30
MLA=mla_decode:64x4096,mla_decode:128x4096,mla_decode:64x8192,mla_decode:128x8192,mla_decode:64x32768,mla_decode:1x32768
timeout 90 $B/tessera_b bench mla_decode --shapes $MLA --out /tmp/x_b > /dev/null 2>&1; echo "bench rc $?"
grep -E "^\| mla" /tmp/x_b/bench.md | cut -d'|' -f3,4,5 | tr -s ' ' | tr '\n' ';'; echo
cp /tmp/x_b/bench.md $R/bench_b.md
date +%T
