#!/usr/bin/env bash
# Session 60, run 9: build s60d (the landed tree: main's MLA kernel and tile ops, the tuner's short near-ties,
# the shared flush buffer, the launch's allowance for static beside dynamic shared memory): the new launch
# test, the tile, MLA and autotune tests, and the matmul rows of 4096 x 4096 once more.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s60d/tessera_gpu_tests.xz > $B/tessera_gpu_tests; chmod +x $B/tessera_gpu_tests
xz -dc ../../../.device/s60d/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run9; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
timeout 250 $B/tessera_gpu_tests --gtest_brief=1 --gtest_filter='LaunchGpu*:*ColumnShares*:*Mla*:*MLA*:*mla*:*TileStaged*:*utotune*' > $R/focus.log 2>&1
echo "focus rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure" $R/focus.log | head -n 20
timeout 60 $B/tessera bench matmul --shapes 8x4096x4096,16x4096x4096,32x4096x4096,16x14336x4096 --out /tmp/x > /dev/null 2>&1; echo "rows rc $?"
grep -E "^\| matmul" /tmp/x/bench.md | cut -d'|' -f3,4,11,12 | tr -s ' ' | tr '\n' ';'; echo
MLA=mla_decode:64x4096,mla_decode:128x4096
timeout 60 $B/tessera bench mla_decode --shapes $MLA --out /tmp/x > /dev/null 2>&1; echo "mla rc $?"
grep -E "^\| mla" /tmp/x/bench.md | cut -d'|' -f3,4,5 | tr -s ' ' | tr '\n' ';'; echo
date +%T
