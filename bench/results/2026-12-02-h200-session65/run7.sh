#!/usr/bin/env bash
# Session 65, run 7: build s65c (the swap-AB kernels' segment helpers shared by the matmul and SwiGLU kernels,
# no change in what they compute): the GPU tests of the matmul family.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s65c/tessera_gpu_tests.xz > $B/tessera_gpu_tests; chmod +x $B/tessera_gpu_tests
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run7; mkdir -p $R
TESSERA_CACHE_DIR=/tmp/tc_tests timeout 240 $B/tessera_gpu_tests --gtest_brief=1 --gtest_filter='MatmulGpu.*:AutotuneGpu.*:TileStagedGpu.*' > $R/gpu_tests.txt 2>&1
echo "gpu tests rc $?"; tail -n 4 $R/gpu_tests.txt; grep -E "FAILED|Failure" $R/gpu_tests.txt | head -20
date +%T
