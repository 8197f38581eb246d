#!/usr/bin/env bash
# Session 39, run 6: mma_nt (b read as [N, K] rows by ldmatrix, no transposition) in the generic kernels: GPU
# suite, ops check, the generic matmul.
set -u
cd "$(dirname "$0")"
mkdir -p bin
for f in tessera tessera_gpu_tests; do xz -dc nt/$f.xz > bin/$f; chmod +x bin/$f; done
export TESSERA_CACHE_DIR=/tmp/tc
nvidia-smi -L
echo "== GPU suite"; date +%T
timeout 250 ./bin/tessera_gpu_tests --gtest_brief=1 > $OUT/gpu_suite.log 2>&1; echo "rc $?"
grep -E "FAILED|PASSED|tests ran" $OUT/gpu_suite.log | tail -n 20
echo "== ops check"; timeout 60 ./bin/tessera ops check --backend tile-cuda > $OUT/ops_check.log 2>&1; tail -n 1 $OUT/ops_check.log
echo "== generic matmul"; date +%T
for dt in bf16 f16; do
  timeout 60 ./bin/tessera bench matmul --shapes 4096x4096x4095,2048x2048x2047,1024x1024x1023,128x4096x4095 --dtype $dt --out /tmp/o_$dt 2>&1 | sed -n '/^op /,$p' | tail -n 5
  cp /tmp/o_$dt/bench.md $OUT/generic_matmul_nt_$dt.md
done
date +%T
