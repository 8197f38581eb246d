#!/usr/bin/env bash
# Session 54, run 5: the batch-1 step with each one-row matmul configuration forced for every plain matmul of
# the step (o, down, lm_head; TESSERA_AUTOTUNE_FORCE), against the tuner's choices; the s54y build of run 4
# (step events on), Llama-3.1-8B shapes, random weights, graphs. Then the tuner's cache.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s54y/tessera.xz > $B/tessera; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc; mkdir -p /tmp/tc
export TESSERA_CACHE_DIR=/tmp/tc TESSERA_STEP_EVENTS=1
timeout 150 $B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1 --decode-steps 16 > /dev/null 2>&1
for round in 1 2 3; do
  for f in tuned rows1_bn4_x2 rows1_bn2_x4 rows1_bn4_x2_chunked; do
    force=""; [ $f != tuned ] && force=matmul:$f
    TESSERA_AUTOTUNE_FORCE=$force timeout 150 $B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 \
      --cuda-graph --batch 1 --decode-steps 64 > /tmp/bm.log 2>&1
    echo "$f rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms; ", $1, $6}') $(grep 'step events: 64' /tmp/bm.log | grep -o 'argmax [0-9.]* us' | head -1)"
    cat /tmp/bm.log >> $OUT/run5_bench_model.log
  done
done
date +%T
for f in /tmp/tc/*; do echo "== $f"; grep -o '"[^"]*1x4096x4096[^"]*"[^}]*\|"[^"]*1x4096x14336[^"]*"[^}]*\|"[^"]*1x128256x4096[^"]*"[^}]*' $f | head -20; done
cp -r /tmp/tc $OUT/run5_tuner_cache
