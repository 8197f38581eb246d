#!/usr/bin/env bash
# Session 53, run 6: the weight-first rms_norm kept to the decode configuration (WEIGHT_FIRST; many rows back to
# the wait at the kernel's entry and the weight after x), after run 5 found the norms at 57-61% of copy: the norm
# GPU tests, the norms against copy bandwidth, the engine at batch 1 (3 rounds) and 8, 32.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s53g/tessera.xz > $B/tessera
xz -dc ../../../.device/s53g/gpu_tests.xz > $B/gpu_tests; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc; mkdir -p /tmp/tc
export TESSERA_CACHE_DIR=/tmp/tc
timeout 200 $B/gpu_tests --gtest_filter='NormGpu.*:*EngineGpu*' > $OUT/run6_gpu_tests.log 2>&1
echo "norm + engine gpu tests rc $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" $OUT/run6_gpu_tests.log | head
timeout 150 $B/tessera bench rms_norm rms_norm_residual --dtype bf16 --shapes 16384x8192,4096x4096,64x4096 --out /tmp/norms > /tmp/n.log 2>&1
echo "norms rc $?"; grep -E "^\| rms" /tmp/norms/bench.md | awk -F'|' '{printf "%s %s %s us %s;", $2, $3, $4, $8} END {print ""}'
cp /tmp/norms/bench.md $OUT/run6_norms.md
for round in 1 2 3; do
  timeout 150 $B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 \
    --cuda-graph --batch 1 > /tmp/bm.log 2>&1
  echo "b1 rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms, %s tok/s; ", $1, $6, $5}')"
  cat /tmp/bm.log >> $OUT/run6_bench_model.log
done
timeout 150 $B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 \
  --cuda-graph --batch 8,32 > /tmp/bm.log 2>&1
echo "b8,32 rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms, %s tok/s, prefill %s tok/s; ", $1, $6, $5, $4}')"
cat /tmp/bm.log >> $OUT/run6_bench_model.log
date +%T
