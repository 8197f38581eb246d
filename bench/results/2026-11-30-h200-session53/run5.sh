#!/usr/bin/env bash
# Session 53, run 5: the committed code (65ac438) as CI's clean clone built it: the GPU test suite, the engine at
# batch 1, 8 and 32, and the norms against copy bandwidth (the one-pass kernels now load the weight first).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s53f/tessera.xz > $B/tessera
xz -dc ../../../.device/s53f/gpu_tests.xz > $B/gpu_tests; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc; mkdir -p /tmp/tc
export TESSERA_CACHE_DIR=/tmp/tc
timeout 420 $B/gpu_tests > $OUT/run5_gpu_suite.log 2>&1
echo "gpu suite rc $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" $OUT/run5_gpu_suite.log | head -20
date +%T
for round in 1 2 3; do
  timeout 150 $B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 \
    --cuda-graph --batch 1 > /tmp/bm.log 2>&1
  echo "b1 rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms, %s tok/s; ", $1, $6, $5}')"
  cat /tmp/bm.log >> $OUT/run5_bench_model.log
done
timeout 150 $B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 \
  --cuda-graph --batch 8,32 > /tmp/bm.log 2>&1
echo "b8,32 rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms, %s tok/s, prefill %s tok/s; ", $1, $6, $5, $4}')"
cat /tmp/bm.log >> $OUT/run5_bench_model.log
timeout 150 $B/tessera bench rms_norm rms_norm_residual --dtype bf16 --shapes 16384x8192,4096x4096 --out /tmp/norms > /tmp/n.log 2>&1
echo "norms rc $?"; grep -E "^\| rms" /tmp/norms/bench.md | awk -F'|' '{printf "%s %s %s us %s;", $2, $3, $4, $8} END {print ""}'
cp /tmp/norms/bench.md $OUT/run5_norms.md
date +%T
