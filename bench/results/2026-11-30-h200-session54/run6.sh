#!/usr/bin/env bash
# Session 54, run 6: a one-row matmul candidate with each block's weight slice asked for four tiles at a time
# (rows1_bn4_x4_chunked: 4 x 1024 tiles, 4 in flight, running chunk sums, 4 blocks a multiprocessor; the whole
# K of a 4096-wide projection in one round trip) in an experiment build (s54z = 815d3bc + the candidate), alone
# against the others at the decode shapes, then the batch-1 step tuned, against 815d3bc (s54b), alternated.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s54z/tessera.xz > $B/tessera
xz -dc ../../../.device/s54b/tessera.xz > $B/tessera_main; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc_* /tmp/mm_*
SHAPES=1x4096x4096,1x4096x14336,1x6144x4096,1x28672x4096,1x128256x4096
for c in rows1_bn4_x2 rows1_bn2_x4 rows1_bn4_x2_chunked rows1_bn4_x4_chunked; do
  mkdir -p /tmp/tc_$c
  TESSERA_CACHE_DIR=/tmp/tc_$c TESSERA_AUTOTUNE_FORCE=matmul:$c timeout 200 $B/tessera bench matmul --dtype bf16 --shapes $SHAPES --out /tmp/mm_$c > /tmp/mm.log 2>&1
  echo "$c rc $? $(grep -E '^\| matmul ' /tmp/mm_$c/bench.md | awk -F'|' '{printf "%s %s us, %s; ", $3, $4, $8}')"
  cp /tmp/mm_$c/bench.md $OUT/run6_matmul_$c.md
done
date +%T
run_as() {
  local m=$1; shift
  mkdir -p /tmp/tc_$m
  local bin=$B/tessera; [ $m = main ] && bin=$B/tessera_main
  TESSERA_CACHE_DIR=/tmp/tc_$m timeout 200 $bin "$@"
}
for m in main new; do run_as $m bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1 --decode-steps 8 > /dev/null 2>&1; done
for round in 1 2 3 4; do
  for m in main new; do
    run_as $m bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1 > /tmp/bm.log 2>&1
    echo "$m rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms; ", $1, $6}')"
    cat /tmp/bm.log >> $OUT/run6_bench_model_$m.log
  done
done
grep -o '"[^"]*m1_n[0-9]*_k[0-9]*" *: *{"choice": "[^"]*"' /tmp/tc_new/autotune.json
date +%T
