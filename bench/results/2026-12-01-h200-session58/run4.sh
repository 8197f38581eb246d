#!/usr/bin/env bash
# Session 58, run 4: the build with layer_norm's full-row kernels and rms_norm's no-residual kernels under the
# tighter caps (s58b). The norm and engine GPU tests, then `tessera bench` for the row ops (bf16 and f16, two rounds).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s58b/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run4; mkdir -p $R
rm -rf /tmp/tc_t
TESSERA_CACHE_DIR=/tmp/tc_t timeout 300 $B/tessera_gpu_tests --gtest_brief=1 --gtest_filter='*Norm*:*norm*:Engine*:*Engine*' > $R/gpu_tests.log 2>&1
echo "gpu tests rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure" $R/gpu_tests.log | head -n 20
for dt in bf16 f16; do
  for r in 1 2; do
    TESSERA_CACHE_DIR=/tmp/tc_t timeout 120 $B/tessera bench layer_norm rms_norm rms_norm_residual --shapes 16384x8192,4096x4096 --dtype $dt --out /tmp/rows_${dt}_$r > /dev/null 2>&1
    echo "$dt round $r rc $?"; cp /tmp/rows_${dt}_$r/bench.md $R/rows_${dt}_$r.md; grep -E "^\| (layer|rms)|copy" $R/rows_${dt}_$r.md | cut -c1-120
  done
done
date +%T
