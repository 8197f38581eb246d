#!/usr/bin/env bash
# Session 58, run 12: the build with the gather's 1 x 8192 blocks for rows of a multiple of 8192 columns (s58f): embedding, CAPI
# and engine GPU tests; `tessera bench embedding rope` (three rounds).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s58f/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run12; mkdir -p $R
rm -rf /tmp/tc_t
TESSERA_CACHE_DIR=/tmp/tc_t timeout 300 $B/tessera_gpu_tests --gtest_brief=1 --gtest_filter='*mbedding*:Engine*:*Engine*:*Capi*:*CApi*' > $R/gpu_tests.log 2>&1
echo "gpu tests rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure" $R/gpu_tests.log | head -n 20
for r in 1 2 3; do
  TESSERA_CACHE_DIR=/tmp/tc_t timeout 100 $B/tessera bench embedding --shapes 16384x8192,4096x4096,16384x5120 --out /tmp/emb > /dev/null 2>&1
  echo "round $r rc $?"; cp /tmp/emb/bench.md $R/embedding_$r.md; grep -E "^\| [a-z]|copy" $R/embedding_$r.md | grep -v "^| op" | cut -d'|' -f2-4,8
done
date +%T
