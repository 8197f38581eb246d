#!/usr/bin/env bash
# Session 63, run 4: build s63b (what lands): prefill with the tuner choosing, causal and not, cuDNN SDPA in the
# same process; then every attention GPU test.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s63b/libtessera.so.xz > $B/libtessera.so
xz -dc ../../../.device/s63b/tessera_gpu_tests.xz > $B/tests; chmod +x $B/tests
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run4; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_r4; rm -rf /tmp/tc_r4
for c in --causal ""; do
  for s in "16 16 1024 128" "8 16 2048 64" "4 16 4096 128" "1 32 2048 128" "1 16 16384 128" "2 16 8192 64" "4 16 4096 256"; do
    timeout 90 python3 bench/profile_fmha.py --lib $B/libtessera.so $s $c --cudnn 2>&1 | tail -n 1
  done
done | tee $R/tuned.txt
cp /tmp/tc_r4/autotune.json $R/ 2>/dev/null
date +%T
timeout 330 $B/tests --gtest_filter='AttentionGpu.*' > $R/tests.log 2>&1
echo "tests rc $?"; grep -E "^\[  (PASSED|FAILED) |Failure|tests ran" $R/tests.log | head -n 12
date +%T
