#!/usr/bin/env bash
# Session 42, run 1: the staged matmul on the tile library's sm_80 pipeline (cp.async stages, mma.sync).
# build-sm80/ (compute_80 code as sm_90 machine code: what an A100 runs): info, the matmul and staged-tile GPU
# tests, ops check, and the matmul sweep against cuBLAS; the generic kernels (TESSERA_HOPPER=0 on build/) in
# the same run for the before/after.
set -u
cd "$(dirname "$0")"
mkdir -p bin
for f in tessera; do xz -dc new/$f.xz > bin/$f; chmod +x bin/$f; done
for f in tessera_gpu_tests tessera; do xz -dc sm80/$f.xz > bin/${f}_sm80; chmod +x bin/${f}_sm80; done
nvidia-smi -L; date +%T
echo "== info (build, build-sm80)"
./bin/tessera info | grep cuda:; ./bin/tessera_sm80 info | grep cuda:
echo "== sm80 form: matmul and staged-tile GPU tests"; date +%T
TESSERA_CACHE_DIR=/tmp/tc_8 timeout 200 ./bin/tessera_gpu_tests_sm80 --gtest_brief=1 --gtest_filter='Matmul*:*StagedMma*' > $OUT/sm80_gpu_tests.log 2>&1; echo "rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED|Failure|error" $OUT/sm80_gpu_tests.log | head -n 20
echo "== sm80 form: ops check"; date +%T
TESSERA_CACHE_DIR=/tmp/tc_8 timeout 90 ./bin/tessera_sm80 ops check --backend tile-cuda > $OUT/sm80_ops_check.log 2>&1; tail -n 2 $OUT/sm80_ops_check.log
S=1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,128x4096x4096,128x14336x4096,128x4096x14336,2048x4096x4096,2048x14336x4096,4096x4096x14336,16x4096x4096,64x4096x4096
echo "== matmul sweep: sm80 form"; date +%T
TESSERA_CACHE_DIR=/tmp/tc_8b timeout 150 ./bin/tessera_sm80 bench matmul --shapes $S --dtype bf16 --out /tmp/m8 > /tmp/m8.log 2>&1; echo "rc $?"
grep -E "^matmul|^\|" /tmp/m8.log | head -n 20; cp /tmp/m8/bench.md $OUT/matmul_sm80_bf16.md; cp /tmp/m8/bench.json $OUT/matmul_sm80_bf16.json
echo "== matmul sweep: generic kernels (TESSERA_HOPPER=0, build/)"; date +%T
TESSERA_HOPPER=0 TESSERA_CACHE_DIR=/tmp/tc_g timeout 150 ./bin/tessera bench matmul --shapes $S --dtype bf16 --out /tmp/mg > /tmp/mg.log 2>&1; echo "rc $?"
cp /tmp/mg/bench.md $OUT/matmul_generic_bf16.md
date +%T
