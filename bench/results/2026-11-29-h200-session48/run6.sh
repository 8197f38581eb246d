#!/usr/bin/env bash
# Session 48, run 6: is the B 1 x 32k bound the cache layout? The same 134 MB of keys and values read as one KV
# head (S 262144, rows contiguous) and as two (S 131072), against 8 heads of 32k (256-byte head rows 2 KB apart),
# each tuned, and a second time.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s48/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
for round in 1 2; do
  rm -rf /tmp/tcb; TESSERA_CACHE_DIR=/tmp/tcb timeout 120 $B/tessera bench fmha_decode \
    --shapes 1x32768x32x8x128,1x131072x8x2x128,1x262144x4x1x128 --out /tmp/bo > /tmp/b.log 2>&1; echo "round $round rc $?"
  grep -E "fmha_decode +B" /tmp/b.log | tail -3; cp /tmp/b.log $OUT/run6_bench_round$round.log
  grep -o '"fmha_decode[^"]*"[^}]*"choice": "[^"]*"' /tmp/tcb/autotune.json | sed 's/"timings.*"choice"/ choice/' | head -3
done
date +%T
