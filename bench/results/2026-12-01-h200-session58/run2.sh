#!/usr/bin/env bash
# Session 58, run 2: the build with layer_norm's full-row kernels under the tighter caps (s58a). The norm GPU tests,
# then `tessera bench` for the row ops (bf16 and f16) and the decode attention shapes near their targets.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s58a/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc_t
TESSERA_CACHE_DIR=/tmp/tc_t timeout 200 $B/tessera_gpu_tests --gtest_brief=1 --gtest_filter='*Norm*:*norm*' > $OUT/run2_gpu_tests.log 2>&1
echo "gpu tests rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure" $OUT/run2_gpu_tests.log | head -n 20
for dt in bf16 f16; do
  for r in 1 2; do
    TESSERA_CACHE_DIR=/tmp/tc_t timeout 120 $B/tessera bench layer_norm rms_norm rope --shapes 16384x8192,4096x4096 --dtype $dt --out $OUT/run2_rows_${dt}_$r > /dev/null 2>&1
    echo "$dt round $r rc $?"; grep -E "layer_norm|rms_norm|rope|copy" $OUT/run2_rows_${dt}_$r/bench.md | head -n 12
  done
done
date +%T
TESSERA_CACHE_DIR=/tmp/tc_t timeout 200 $B/tessera bench fmha_decode --shapes 8x8192x32x8x128,1x32768x32x8x128,32x4096x32x8x128 --out $OUT/run2_decode > /dev/null 2>&1
echo "decode rc $?"; cat $OUT/run2_decode/bench.md | head -n 20
TESSERA_CACHE_DIR=/tmp/tc_t timeout 200 $B/tessera bench mla_decode --shapes mla_decode:64x4096,mla_decode:128x4096,mla_decode:128x8192 --out $OUT/run2_mla > /dev/null 2>&1
echo "mla rc $?"; cat $OUT/run2_mla/bench.md | head -n 20
date +%T
