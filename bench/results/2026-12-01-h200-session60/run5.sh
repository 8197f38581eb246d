#!/usr/bin/env bash
# Session 60, run 5: build s60b (MLA decode's scores in k shares: each consumer multiplies every key over half
# of the columns, the partial sums exchanged): the column-share and MLA tests on the GPU, then mla_decode.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s60b/tessera_gpu_tests.xz > $B/tessera_gpu_tests; chmod +x $B/tessera_gpu_tests
xz -dc ../../../.device/s60b/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run5; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
timeout 200 $B/tessera_gpu_tests --gtest_brief=1 --gtest_filter='*ColumnShares*:*Mla*:*MLA*:*mla*' > $R/focus.log 2>&1
echo "focus rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure" $R/focus.log | head -n 20
MLA=mla_decode:64x4096,mla_decode:128x4096,mla_decode:64x8192,mla_decode:128x8192,mla_decode:64x32768
for r in 1 2 3; do
  timeout 120 $B/tessera bench mla_decode --shapes $MLA --out /tmp/x > /dev/null 2>&1; echo "mla s60b $r rc $?"
  cp /tmp/x/bench.md $R/mla_$r.md; grep -E "^\| mla" /tmp/x/bench.md | cut -d'|' -f3,4,5 | tr -s ' ' | tr '\n' ';'; echo
done
date +%T
