#!/usr/bin/env bash
# Session 54, run 2: the final build of this session (s54b: run 1's build plus `generate` and `chat` replaying
# decode steps as CUDA graphs by default on a GPU): the GPU test suite; generate and chat on the embedded model
# with and without graphs (the same ids expected); the engine at batch 1, 8 and 32.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s54b/tessera.xz > $B/tessera
xz -dc ../../../.device/s54b/gpu_tests.xz > $B/gpu_tests; chmod +x $B/*
nvidia-smi -L; date +%T; which nsys ncu
cd ../../..
rm -rf /tmp/tc; mkdir -p /tmp/tc
export TESSERA_CACHE_DIR=/tmp/tc
timeout 450 $B/gpu_tests > $OUT/run2_gpu_suite.log 2>&1
echo "gpu suite rc $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" $OUT/run2_gpu_suite.log | head -20
date +%T
for t in 0 0.8; do
  for g in "" --no-cuda-graph; do
    timeout 60 $B/tessera generate --model models/tessera-tiny --prompt "And God said" --max-tokens 96 --device cuda \
      --temperature $t --seed 7 --print-ids $g > /tmp/gen.log 2>/tmp/gen.err
    echo "generate t=$t ${g:-graphs} rc $? ids $(tail -1 /tmp/gen.log | md5sum | cut -c1-8) $(grep -o 'decode [0-9.]* tokens/s' /tmp/gen.err)"
    cat /tmp/gen.log /tmp/gen.err >> $OUT/run2_generate.log
  done
done
printf 'Who made the heaven?\n' | timeout 60 $B/tessera chat --model models/tessera-tiny --device cuda --max-tokens 24 --temperature 0 > /tmp/chat.log 2>&1
echo "chat rc $?"; cat /tmp/chat.log | tail -3; cp /tmp/chat.log $OUT/run2_chat.log
for round in 1 2 3; do
  timeout 150 $B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 \
    --cuda-graph --batch 1 > /tmp/bm.log 2>&1
  echo "b1 rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms, %s tok/s; ", $1, $6, $5}')"
  cat /tmp/bm.log >> $OUT/run2_bench_model.log
done
timeout 150 $B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 \
  --cuda-graph --batch 8,32 > /tmp/bm.log 2>&1
echo "b8,32 rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms, %s tok/s, prefill %s tok/s; ", $1, $6, $5, $4}')"
cat /tmp/bm.log >> $OUT/run2_bench_model.log
date +%T
