#!/usr/bin/env bash
# Session 47, run 1: how much of a decode step are the two RMSNorm kernels of each layer? A probe build whose
# llama layers skip them in decode steps (TESSERA_PROBE_SKIP_NORM=1; the projections then read a stale xn),
# alternated with the same binary running them. An upper bound on what fusing the norm into the projections
# can gain.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s47/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
step() { grep -E '^[0-9]+ +2048' $1 | awk '{printf "b%s %s ms  ", $1, $6}'; }
rm -rf /tmp/tc; mkdir -p /tmp/tc
TESSERA_CACHE_DIR=/tmp/tc timeout 200 $M --batch 1,4 > /tmp/r.log 2>&1; echo "tuned rc $? $(step /tmp/r.log)"
cp /tmp/r.log $OUT/run1_tuning.log
for round in 1 2 3 4 5; do
  TESSERA_CACHE_DIR=/tmp/tc timeout 100 $M --batch 1,4 > /tmp/r.log 2>&1; echo "with norms round $round rc $? $(step /tmp/r.log)"
  TESSERA_PROBE_SKIP_NORM=1 TESSERA_CACHE_DIR=/tmp/tc timeout 100 $M --batch 1,4 > /tmp/r.log 2>&1; echo "no norms   round $round rc $? $(step /tmp/r.log)"
done
cp /tmp/tc/autotune.json $OUT/run1_autotune.json
date +%T
