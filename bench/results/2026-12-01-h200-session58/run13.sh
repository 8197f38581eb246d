#!/usr/bin/env bash
# Session 58, run 13: the build with fp32 rope back on its earlier blocks (s58g): rope, qkv and norm GPU tests;
# `tessera bench rope` bf16 and f16.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s58g/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run13; mkdir -p $R
rm -rf /tmp/tc_t
TESSERA_CACHE_DIR=/tmp/tc_t timeout 300 $B/tessera_gpu_tests --gtest_brief=1 --gtest_filter='*Rope*:*rope*:*Qkv*:*Norm*' > $R/gpu_tests.log 2>&1
echo "gpu tests rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure" $R/gpu_tests.log | head -n 20
for dt in bf16 f16; do
  TESSERA_CACHE_DIR=/tmp/tc_t timeout 100 $B/tessera bench rope --shapes 16384x8192,4096x4096 --dtype $dt --out /tmp/rope > /dev/null 2>&1
  echo "$dt rc $?"; cp /tmp/rope/bench.md $R/rope_$dt.md; grep -E "^\| [a-z]|copy" $R/rope_$dt.md | grep -v "^| op" | cut -d'|' -f2-4,8
done
