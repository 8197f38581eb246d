#!/usr/bin/env bash
# Session 40, run 2: the generic k loop's accumulator forms (probe), and the whole library dispatched as on a GPU
# before Hopper (TESSERA_HOPPER=0: the generic kernels that sm_80 / sm_89 run): GPU suite, ops check, benches.
set -u
cd "$(dirname "$0")"
mkdir -p bin
for f in tessera tessera_gpu_tests; do xz -dc new/$f.xz > bin/$f; chmod +x bin/$f; done
xz -dc probe/generic_matmul_accumulators.xz > bin/probe; chmod +x bin/probe
nvidia-smi -L; date +%T
echo "== probe: generic k loop forms"
timeout 120 ./bin/probe | tee $OUT/probe_generic_matmul_accumulators.log
echo "== GPU suite, TESSERA_HOPPER=0"; date +%T
TESSERA_HOPPER=0 TESSERA_CACHE_DIR=/tmp/tc_g timeout 330 ./bin/tessera_gpu_tests --gtest_brief=1 > $OUT/gpu_suite_generic.log 2>&1; echo "rc $?"
grep -E "FAILED|PASSED|tests ran" $OUT/gpu_suite_generic.log | tail -n 25
echo "== ops check, TESSERA_HOPPER=0"; date +%T
TESSERA_HOPPER=0 TESSERA_CACHE_DIR=/tmp/tc_g timeout 120 ./bin/tessera ops check --backend tile-cuda > $OUT/ops_check_generic.log 2>&1; tail -n 1 $OUT/ops_check_generic.log
grep FAIL $OUT/ops_check_generic.log | head
echo "== matmul, TESSERA_HOPPER=0"; date +%T
for dt in bf16 f16; do
TESSERA_HOPPER=0 TESSERA_CACHE_DIR=/tmp/tc_g timeout 120 ./bin/tessera bench matmul --shapes 4096x4096x4096,2048x2048x2048,1024x1024x1024,128x4096x4096,1x4096x4096 --dtype $dt --out /tmp/m_$dt > /tmp/m_$dt.log 2>&1
grep -E "^matmul" /tmp/m_$dt.log
done
cp /tmp/m_bf16/bench.md $OUT/matmul_generic_bf16.md
echo "== fmha and fmha_decode, TESSERA_HOPPER=0"; date +%T
TESSERA_HOPPER=0 TESSERA_CACHE_DIR=/tmp/tc_g timeout 150 ./bin/tessera bench fmha fmha_decode --quick --out /tmp/a > /tmp/a.log 2>&1; echo "rc $?"
grep -E "^fmha" /tmp/a.log | head -20
cp /tmp/a/bench.md $OUT/attention_generic.md
date +%T
