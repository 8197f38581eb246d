#!/usr/bin/env bash
# Session 48, run 7: decode attention at batch 1 over 8k to 128k keys (GQA 32/8, D 128), tuned: a line through
# the times gives the steady rate (slope) and the fixed cost a call (intercept). Two rounds.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s48/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
for round in 1 2; do
  rm -rf /tmp/tcb; TESSERA_CACHE_DIR=/tmp/tcb timeout 150 $B/tessera bench fmha_decode \
    --shapes 1x8192x32x8x128,1x16384x32x8x128,1x32768x32x8x128,1x65536x32x8x128,1x131072x32x8x128 --out /tmp/bo > /tmp/b.log 2>&1
  echo "round $round rc $?"; grep -E "fmha_decode +B" /tmp/b.log | tail -5; cp /tmp/b.log $OUT/run7_bench_round$round.log
  grep -o '"fmha_decode[^"]*"[^}]*"choice": "[^"]*"' /tmp/tcb/autotune.json | sed 's/"timings.*"choice"/ choice/'
done
date +%T
