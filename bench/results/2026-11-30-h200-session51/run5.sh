#!/usr/bin/env bash
# Session 51, run 5: the build with the 4-row chunked forms removed and the autotune tests counting the one-row
# list: the GPU tests that touch the change (autotune, matmul, tile parity), and the tuned one-row matmuls.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s51c/gpu_tests.xz > $B/gpu_tests; xz -dc ../../../.device/s51c/tessera.xz > $B/tessera; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
timeout 400 $B/gpu_tests --gtest_filter='AutotuneGpu.*:MatmulGpu.*:TileParityGpu.*:AttentionGpu.Qkv*' > $OUT/run5_gpu_tests.log 2>&1
echo "gpu tests rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED  \]|tests ran" $OUT/run5_gpu_tests.log | head -20; date +%T
TESSERA_CACHE_DIR=/tmp/tc5 timeout 100 $B/tessera bench matmul --dtype bf16 \
  --shapes 1x4096x4096,1x4096x14336,1x14336x4096,1x28672x4096,1x128256x4096,4x4096x4096 --out /tmp/b5 > /tmp/b.log 2>&1
echo "bench rc $?"; grep "^| matmul" /tmp/b5/bench.md
date +%T
