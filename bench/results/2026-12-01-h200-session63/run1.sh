#!/usr/bin/env bash
# Session 63, run 1: build s63a (causal work items in pairs of about equal work on persistent grids): its
# persistent configurations against the grid of one block an item (code unchanged from main, which the tuner
# chose for causal prefill), forced, cuDNN SDPA in the same process; then the tuner choosing; then the attention
# GPU tests. (Main's library did not fit beside these in what a run may carry: its persistent causal numbers are
# session 62's, run 4.)
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s63a/libtessera.so.xz > $B/libnew.so
xz -dc ../../../.device/s63a/tessera_gpu_tests.xz > $B/tests; chmod +x $B/tests
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run1; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_r1; rm -rf /tmp/tc_r1
run() { local lib=$1 cfg=$2; shift 2; TESSERA_AUTOTUNE_FORCE=fmha:$cfg timeout 60 python3 bench/profile_fmha.py --lib $B/lib$lib.so "$@" 2>&1 | tail -n 1 | sed "s/^/$lib $cfg: /"; }
for round in 1 2; do
  for cfg in bn128_s6 bn128_s6_persistent bn128_s5_overlap_persistent; do run new $cfg 16 16 1024 128 --causal --cudnn; done
  for cfg in bn128_s8 bn128_s8_persistent bn128_s8_overlap_persistent; do run new $cfg 8 16 2048 64 --causal --cudnn; done
  for cfg in bn128_s6 bn128_s6_persistent bn128_s5_overlap_persistent; do run new $cfg 4 16 4096 128 --causal --cudnn; done
  for cfg in bn128_s6 bn128_s6_persistent bn128_s5_overlap_persistent; do run new $cfg 1 32 2048 128 --causal --cudnn; done
done | tee $R/forced.txt
date +%T
rm -rf /tmp/tc_r1
for s in "16 16 1024 128" "8 16 2048 64" "4 16 4096 128" "1 32 2048 128" "1 16 16384 128" "2 16 8192 64"; do
  timeout 90 python3 bench/profile_fmha.py --lib $B/libnew.so $s --causal --cudnn 2>&1 | tail -n 1
done | tee $R/tuned.txt
cp /tmp/tc_r1/autotune.json $R/ 2>/dev/null
date +%T
timeout 170 $B/tests --gtest_filter='AttentionGpu.EveryStagedConfigurationMatchesReference:AttentionGpu.Fmha*' > $R/tests.log 2>&1
echo "tests rc $?"; grep -E "^\[  (PASSED|FAILED) |Failure|tests ran" $R/tests.log | head -n 12
date +%T
