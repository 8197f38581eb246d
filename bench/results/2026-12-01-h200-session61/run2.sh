#!/usr/bin/env bash
# Session 61, run 2: build s61c (s61b plus main's MLA kernel beside it for this comparison only, chosen by
# TESSERA_MLA_KERNEL=shares): the solo, column-share and MLA GPU tests one by one, the attention GPU tests,
# then mla_decode with the solo kernel (b) against main's (a), three rounds alternated.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s61c/tessera_gpu_tests.xz > $B/tests; chmod +x $B/tests
xz -dc ../../../.device/s61c/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run2; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
timeout 100 $B/tests --gtest_filter='*Solo*:*Mla*:*MLA*:*mla*:*ColumnShares*' > $R/focus.log 2>&1
echo "focus rc $?"; grep -E "^\[  |Failure|rror" $R/focus.log | grep -v "RUN" | head -n 30
timeout 240 $B/tests --gtest_filter='AttentionGpu.*:-*Mla*' > $R/attention.log 2>&1
echo "attention rc $?"; grep -E "^\[  |Failure|rror" $R/attention.log | grep -v "RUN" | tail -n 30
MLA=mla_decode:64x4096,mla_decode:128x4096,mla_decode:64x8192,mla_decode:128x8192,mla_decode:64x32768,mla_decode:1x32768
for round in 1 2 3; do
  for v in a b; do
    if [ $v = a ]; then export TESSERA_MLA_KERNEL=shares; else unset TESSERA_MLA_KERNEL; fi
    timeout 60 $B/tessera bench mla_decode --shapes $MLA --out /tmp/x_$v > /dev/null 2>&1; echo "round $round $v rc $?"
    grep -E "^\| mla" /tmp/x_$v/bench.md | cut -d'|' -f4,5 | tr -s ' ' | tr '\n' ';'; echo
    cp /tmp/x_$v/bench.md $R/bench_${v}_$round.md
  done
done
date +%T
