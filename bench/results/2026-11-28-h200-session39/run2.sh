#!/usr/bin/env bash
# Session 39, run 2: GPU suite, generic matmul before/after, layer_norm, ops check.
set -u
cd "$(dirname "$0")"
mkdir -p bin
for f in old/tessera new/tessera new/tessera_gpu_tests; do xz -dc $f.xz > bin/$(echo $f | tr / _); chmod +x bin/$(echo $f | tr / _); done
export TESSERA_CACHE_DIR=/tmp/tc
nvidia-smi -L
echo "== GPU suite"; date +%T
timeout 260 ./bin/new_tessera_gpu_tests --gtest_brief=1 > $OUT/gpu_suite.log 2>&1; echo "rc $?"
grep -E "FAILED|PASSED|tests ran" $OUT/gpu_suite.log | tail -n 20
echo "== ops check"; date +%T
timeout 90 ./bin/new_tessera ops check --backend tile-cuda > $OUT/ops_check.log 2>&1; tail -n 3 $OUT/ops_check.log
echo "== generic matmul (unaligned K): new, old"; date +%T
S=4096x4096x4095,2048x2048x2047,1024x1024x1023,128x4096x4095
timeout 60 ./bin/new_tessera bench matmul --shapes $S --out $OUT/new_generic 2>&1 | tail -n 5
timeout 60 ./bin/new_tessera bench matmul --shapes $S --dtype f16 --out $OUT/new_generic_f16 2>&1 | tail -n 5
echo "== layer_norm: new, old (bf16, f16)"; date +%T
for b in new old; do for dt in bf16 f16; do
  timeout 30 ./bin/${b}_tessera bench layer_norm --shapes 16384x8192,4096x4096 --dtype $dt --out $OUT/ln_${b}_$dt 2>&1 | grep "layer_norm" | tail -n 2
done; done
for b in new old; do timeout 30 ./bin/${b}_tessera bench layer_norm --shapes 16384x8192,4096x4096 --out $OUT/ln_${b}_bf16_2 2>&1 | grep "layer_norm" | tail -n 2; done
date +%T
