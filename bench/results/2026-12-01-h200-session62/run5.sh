#!/usr/bin/env bash
# Session 62, run 5: build s62e (the code that lands: overlapped items offered as persistent candidates only):
# the attention GPU tests, then prefill at the short shapes with the tuner choosing, cuDNN in the same process.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s62e/libtessera.so.xz > $B/libtessera.so
xz -dc ../../../.device/s62e/tessera_gpu_tests.xz > $B/tests; chmod +x $B/tests
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run5; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_r5; rm -rf /tmp/tc_r5
P="python3 bench/profile_fmha.py --lib $B/libtessera.so"
for s in "16 16 1024 128" "8 16 2048 64" "4 16 4096 128"; do timeout 60 $P $s --cudnn 2>&1 | tail -n 1; done | tee $R/tuned.txt
cp /tmp/tc_r5/autotune.json $R/ 2>/dev/null
timeout 250 $B/tests --gtest_filter='AttentionGpu.*' > $R/tests.log 2>&1
echo "tests rc $?"; grep -E "^\[  (PASSED|FAILED) |Failure|tests ran" $R/tests.log | head -n 12
date +%T
