#!/usr/bin/env bash
# Session 62, run 4: build s62d, persistent prefill attention with work items overlapped (the consumers' turns
# run on across items, the query tile released after the last scores, the output through the pipeline's staging buffers, 5 stages at head dim 128),
# against main's configurations, forced, cuDNN in the same process; then the staged-configuration tests.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s62d/libtessera.so.xz > $B/libtessera.so
xz -dc ../../../.device/s62d/tessera_gpu_tests.xz > $B/tests; chmod +x $B/tests
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run4; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_r4; rm -rf /tmp/tc_r4
P="python3 bench/profile_fmha.py --lib $B/libtessera.so"
run() { local cfg=$1; shift; TESSERA_AUTOTUNE_FORCE=fmha:$cfg timeout 60 $P "$@" 2>&1 | tail -n 1 | sed "s/^/$cfg: /"; }
for round in 1 2; do
  for c in "" "--causal"; do
    for cfg in bn128_s6_persistent bn128_s5_overlap_persistent bn128_s6; do run $cfg 16 16 1024 128 $c --cudnn; done
    for cfg in bn128_s8_persistent bn128_s8_overlap_persistent; do run $cfg 8 16 2048 64 $c --cudnn; done
    for cfg in bn128_s6_persistent bn128_s5_overlap_persistent; do run $cfg 4 16 4096 128 $c --cudnn; done
  done
done | tee $R/forced.txt
timeout 240 $B/tests --gtest_filter='AttentionGpu.EveryStagedConfigurationMatchesReference:AttentionGpu.Fmha*' > $R/tests.log 2>&1
echo "tests rc $?"; grep -E "^\[  (PASSED|FAILED) |Failure" $R/tests.log | head -n 12
date +%T
