#!/usr/bin/env bash
# Session 51, run 3: the whole GPU suite on run 2's build.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s51b/gpu_tests.xz > $B/gpu_tests; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
timeout 420 $B/gpu_tests > $OUT/run3_gpu_suite.log 2>&1
echo "gpu suite rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED  \]|tests ran" $OUT/run3_gpu_suite.log | head -20; date +%T
