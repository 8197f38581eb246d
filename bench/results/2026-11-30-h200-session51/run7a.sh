#!/usr/bin/env bash
# Session 51, run 7a: the whole GPU suite on the final build (the fused one-row kernels with chunk sums).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s51d/gpu_tests.xz > $B/gpu_tests; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
timeout 430 $B/gpu_tests > $OUT/run7a_gpu_suite.log 2>&1
echo "gpu suite rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED  \]|tests ran" $OUT/run7a_gpu_suite.log | head -20; date +%T
