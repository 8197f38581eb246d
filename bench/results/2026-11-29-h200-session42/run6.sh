#!/usr/bin/env bash
# Session 42, run 6: after kernel_code.cu / device.cpp (no code of the build for a device: form 0, not an error):
# info and ops check on build/ (Hopper kernels) and build-sm80/ (the sm_80 form).
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc new/tessera.xz > bin/tessera; xz -dc sm80/tessera.xz > bin/tessera_sm80; chmod +x bin/*
./bin/tessera info | grep cuda:; ./bin/tessera_sm80 info | grep cuda:
TESSERA_CACHE_DIR=/tmp/tc_a timeout 90 ./bin/tessera ops check --backend tile-cuda > $OUT/ops_check.log 2>&1; tail -n 1 $OUT/ops_check.log
TESSERA_CACHE_DIR=/tmp/tc_b timeout 90 ./bin/tessera_sm80 ops check --backend tile-cuda > $OUT/sm80_ops_check.log 2>&1; tail -n 1 $OUT/sm80_ops_check.log
TESSERA_HOPPER=0 ./bin/tessera info | grep cuda:
