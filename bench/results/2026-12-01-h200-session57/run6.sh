#!/usr/bin/env bash
# Session 57, run 6: the bandwidth bound of run 5's build on one machine: the copy ceiling (`tessera bench`, measured
# before and after), batch 1 five times between them. 15.0 GB of weights read a token (Llama-3.1-8B in bf16 without
# the embedding table) over the copy bandwidth is the bound issue 5 measures against.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s57e/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
copy() { timeout 120 $B/tessera bench embedding --quick --out /tmp/bq > /dev/null 2>&1; grep -o "device-to-device copy [0-9]* GB/s" /tmp/bq/bench.md; }
copy
A="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
export TESSERA_CACHE_DIR=/tmp/tc6; rm -rf /tmp/tc6
timeout 150 $B/tessera $A --batch 1 --decode-steps 16 > /dev/null 2>&1
for r in 1 2 3 4 5; do
  timeout 100 $B/tessera $A --batch 1 --decode-steps 64 2>/dev/null | grep -E '^[0-9]+ +[0-9]+ ' | awk '{printf "b1 %s ms %s tok/s; ", $6, $5}'
done
echo
copy
date +%T
