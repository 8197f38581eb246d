#!/usr/bin/env bash
# Session 66, run 5: (a) the GPU tests of the matmul family on s66m (1b1c144 + 3a6b39a: the swap-AB plans'
# shared workspace helper, the stream-K sentinel end); (b) decode attention's copies issued differently, build
# s66y (main + TESSERA_EXP_DECODE bits read by the launcher: 1 = K/V copies without the evict-first hint,
# 2 = a stage's copies issued panel by panel (all boxes' first 64 columns, then the second), 8 = consumers only
# release their stages), each forced configuration in CUDA graphs.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s66m/tessera_gpu_tests.xz > $B/tessera_gpu_tests || exit 1; chmod +x $B/tessera_gpu_tests
xz -dc ../../../.device/s66y/libtessera.so.xz > $B/libexp.so || exit 1
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run5; mkdir -p $R
TESSERA_CACHE_DIR=/tmp/tc_tests timeout 240 $B/tessera_gpu_tests --gtest_brief=1 --gtest_filter='MatmulGpu.*:AutotuneGpu.*:TileStagedGpu.*' > $R/gpu_tests.txt 2>&1
echo "gpu tests rc $?"; tail -n 3 $R/gpu_tests.txt; grep -E "FAILED|Failure" $R/gpu_tests.txt | head -20
date +%T
{
for round in 1 2; do
  for shape in "32 4096" "1 32768"; do
    for cfg in bn64_s3_x2 sliced_bn64_s3_x2; do
      for e in 0 1 2 8 9; do
        echo "r$round exp $e $cfg contiguous $shape: $(TESSERA_EXP_DECODE=$e TESSERA_AUTOTUNE_FORCE=fmha_decode:$cfg TESSERA_CACHE_DIR=/tmp/tc5 timeout 60 python3 bench/profile_decode.py --lib $B/libexp.so --contiguous $shape 2>&1 | tail -n 1)"
      done
    done
  done
done
for e in 0 1; do
  echo "exp $e bn64_s3_x2 page16 32 4096: $(TESSERA_EXP_DECODE=$e TESSERA_AUTOTUNE_FORCE=fmha_decode:bn64_s3_x2 TESSERA_CACHE_DIR=/tmp/tc5 timeout 60 python3 bench/profile_decode.py --lib $B/libexp.so 32 4096 2>&1 | tail -n 1)"
done
} | tee $R/variants.txt
date +%T
