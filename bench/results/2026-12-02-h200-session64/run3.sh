#!/usr/bin/env bash
# Session 64, run 3: build s64b (experiment): prefill attention with every EXP2_EVERY-th probability of a thread's
# computed by a polynomial on the FMA units instead of the multi-function unit (tile::exp2_spread), as extra
# persistent candidates (_e4: a quarter, _e8: an eighth). The GPU tests of the staged configurations and the tile
# ops' parity, then each candidate forced against the same configuration without the polynomial, in one library,
# cuDNN SDPA in the same process. (s64b also has TileSchedule::at in 32 bits, on both sides of the comparison.)
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s64b/libtessera.so.xz > $B/libtessera.so
xz -dc ../../../.device/s64b/tessera_gpu_tests.xz > $B/tests; chmod +x $B/tests
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run3; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_r3; rm -rf /tmp/tc_r3
run() { local cfg=$1; shift; TESSERA_AUTOTUNE_FORCE=fmha:$cfg timeout 60 python3 bench/profile_fmha.py --lib $B/libtessera.so "$@" 2>&1 | tail -n 1 | sed "s/^/$cfg: /"; }
for round in 1 2; do
  for c in "" --causal; do
    for cfg in bn128_s8 bn128_s8_e4 bn128_s8_e8 bn128_s8_overlap bn128_s8_overlap_e4; do run ${cfg}_persistent 8 16 2048 64 $c --cudnn; done
    for cfg in bn128_s5_overlap bn128_s5_overlap_e4 bn128_s5_overlap_e8; do run ${cfg}_persistent 16 16 1024 128 $c --cudnn; done
  done
  for cfg in bn128_s6 bn128_s6_e4; do run ${cfg}_persistent 4 16 4096 128 --cudnn; done
done | tee $R/forced.txt
date +%T
timeout 280 $B/tests --gtest_filter='AttentionGpu.EveryStagedConfigurationMatchesReference:AttentionGpu.Fmha*:TileParityGpu.*' > $R/tests.log 2>&1
echo "tests rc $?"; grep -E "^\[  (PASSED|FAILED) |Failure|tests? from .* ms total" $R/tests.log | head -n 20
date +%T
