#!/usr/bin/env bash
# Session 62, run 2: build s62b, prefill attention with three consumer warpgroups (192 query rows a block):
# every staged configuration's GPU test, then each configuration forced against cuDNN in the same process.
# (s62b's three-consumer candidates bm192_* are not on main: the experiment was reverted; NOTES.md describes it.)
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s62b/libtessera.so.xz > $B/libtessera.so
xz -dc ../../../.device/s62b/tessera_gpu_tests.xz > $B/tests; chmod +x $B/tests
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run2; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_r2; rm -rf /tmp/tc_r2
timeout 200 $B/tests --gtest_filter='AttentionGpu.EveryStagedConfigurationMatchesReference:AttentionGpu.Fmha*' > $R/tests.log 2>&1
echo "tests rc $?"; grep -E "^\[  (PASSED|FAILED) |FAILED|Failure" $R/tests.log | head -n 12
P="python3 bench/profile_fmha.py --lib $B/libtessera.so"
run() { local cfg=$1; shift; TESSERA_AUTOTUNE_FORCE=fmha:$cfg timeout 60 $P "$@" 2>&1 | tail -n 1 | sed "s/^/$cfg: /"; }
for round in 1 2; do
  for c in "" "--causal"; do
    for cfg in bn128_s8_persistent bm192_bn96_s12_persistent bm192_bn96_s12; do run $cfg 8 16 2048 64 $c --cudnn; done
    for cfg in bn128_s6_persistent bm192_bn64_s10_persistent bn128_s6 bm192_bn64_s10; do run $cfg 16 16 1024 128 $c --cudnn; done
  done
done | tee $R/forced.txt
for s in "8 16 2048 64" "16 16 1024 128" "4 16 4096 128" "2 16 8192 64"; do
  for c in "" "--causal"; do timeout 60 $P $s $c --cudnn 2>&1 | tail -n 1; done
done | tee $R/tuned.txt
cp /tmp/tc_r2/autotune.json $R/ 2>/dev/null
date +%T
