#!/usr/bin/env bash
# Session 62, run 3: build s62c, persistent prefill attention with work items overlapped (the consumers' turns
# run on across items, the query tile released after the last scores, the output stored from registers),
# against main's configurations, forced, cuDNN in the same process; then the staged-configuration tests.
# (s62c's bn128_s6_overlap stored O from registers; main has bn128_s5_overlap, staged: run 4.)
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s62c/libtessera.so.xz > $B/libtessera.so
xz -dc ../../../.device/s62c/tessera_gpu_tests.xz > $B/tests; chmod +x $B/tests
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run3; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_r3; rm -rf /tmp/tc_r3
P="python3 bench/profile_fmha.py --lib $B/libtessera.so"
run() { local cfg=$1; shift; TESSERA_AUTOTUNE_FORCE=fmha:$cfg timeout 60 $P "$@" 2>&1 | tail -n 1 | sed "s/^/$cfg: /"; }
for round in 1 2; do
  for c in "" "--causal"; do
    for cfg in bn128_s6_persistent bn128_s6_overlap_persistent bn128_s6; do run $cfg 16 16 1024 128 $c --cudnn; done
    for cfg in bn128_s8_persistent bn128_s8_overlap_persistent; do run $cfg 8 16 2048 64 $c --cudnn; done
    for cfg in bn128_s6_persistent bn128_s6_overlap_persistent; do run $cfg 4 16 4096 128 $c --cudnn; done
  done
done | tee $R/forced.txt
timeout 240 $B/tests --gtest_filter='AttentionGpu.EveryStagedConfigurationMatchesReference:AttentionGpu.Fmha*' > $R/tests.log 2>&1
echo "tests rc $?"; grep -E "^\[  (PASSED|FAILED) |Failure" $R/tests.log | head -n 12
date +%T
