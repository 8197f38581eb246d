#!/usr/bin/env bash
# Session 59, run 8: mla_decode's row sums kept in the shares' hands (running_row_sums, one exchange at the end
# instead of one a key tile; build s59f). The GPU tests of the tile library's staged pipelines and of attention,
# then mla_decode timed against main's build (s59e), alternated, three rounds.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s59f/tessera.xz > $B/tessera; chmod +x $B/tessera
xz -dc ../../../.device/s59f/tessera_gpu_tests.xz > $B/tessera_gpu_tests; chmod +x $B/tessera_gpu_tests
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run8; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
timeout 300 $B/tessera_gpu_tests --gtest_brief=1 --gtest_filter='*TileStaged*:*ColumnShares*:*Attention*:*Mla*:*Decode*' > $R/gpu_tests.log 2>&1
echo "gpu tests rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure" $R/gpu_tests.log | head -n 20
date +%T
MLA=mla_decode:64x4096,mla_decode:128x4096,mla_decode:64x8192,mla_decode:128x8192,mla_decode:64x32768
for r in 1 2 3; do
  timeout 120 $B/tessera bench mla_decode --shapes $MLA --out /tmp/x > /dev/null 2>&1; echo "new round $r rc $?"
  cp /tmp/x/bench.md $R/mla_new_$r.md; grep -E "^\| mla" /tmp/x/bench.md | cut -d'|' -f3,4,5 | tr '\n' ';'; echo
done
date +%T
