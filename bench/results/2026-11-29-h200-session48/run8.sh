#!/usr/bin/env bash
# Session 48, run 8: the build of cf18ff3 (q/k/v views from ops::qkv_heads in the op and the engine): the GPU
# tests of the op, the engine and attention, and the batch-1 step.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s48/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
rm -rf /tmp/tc_t; TESSERA_CACHE_DIR=/tmp/tc_t timeout 300 $B/tessera_gpu_tests --gtest_brief=1 \
  --gtest_filter='*Qkv*:*EngineGpu*:*RopeKvCache*:*Attention*' > $OUT/run8_gpu_tests.log 2>&1; echo "gpu tests rc $?"
grep -E "FAILED|PASSED|tests ran|Failure" $OUT/run8_gpu_tests.log | head -n 20
cd ../../..
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
rm -rf /tmp/tc; mkdir -p /tmp/tc
for round in 1 2; do
  TESSERA_CACHE_DIR=/tmp/tc timeout 150 $M --batch 1 > /tmp/r.log 2>&1; echo "round $round rc $? $(grep -E '^[0-9]+ +2048' /tmp/r.log | awk '{printf "b%s %s ms %s tok/s", $1, $6, $5}')"
done
date +%T
