#!/usr/bin/env bash
# Session 52, run 4a: the whole GPU suite on the committed build (72f748a, built by CI's clean clone).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s52d/gpu_tests.xz > $B/gpu_tests; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
timeout 540 $B/gpu_tests > $OUT/run4a_gpu_suite.log 2>&1
echo "gpu suite rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED  \]|tests ran" $OUT/run4a_gpu_suite.log | head -20; date +%T
