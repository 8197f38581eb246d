#!/usr/bin/env bash
# Session 56, run 5: is DecodeMerge slow (4-6 us a layer for a few KB) because the o projection, which starts
# while the merge runs, floods the memory system with its first weight tiles? The traced build of run 1, batch 1
# (prompt 2048, graphs, decode attention forced to the sliced kernel in all three): as is;
# TESSERA_WEIGHTS_EARLY=0 (projections ask for weights only after their wait); TESSERA_DECODE_EARLY_START=0.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s56/tessera_trace.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1 --decode-steps 32"
export TESSERA_CACHE_DIR=/tmp/tc5; rm -rf /tmp/tc5; mkdir -p /tmp/tc5
export TESSERA_AUTOTUNE_FORCE=fmha_decode:sliced_bn64_s3_x2_short
W=$OUT/run5; mkdir -p $W
run() {  # name, then env assignments
  local name=$1; shift
  env "$@" timeout 150 $M --trace /tmp/$name.json > $W/$name.log 2>&1
  echo "$name rc $? $(grep -E '^[0-9]+ +[0-9]+ ' $W/$name.log | awk '{printf "%s ms a step", $6}')"
  python3 bench/trace_summary.py /tmp/$name.json.tsv > $W/${name}_summary.txt 2>&1
  sed -n '5,10p' $W/${name}_summary.txt
  for o in 10 20; do python3 bench/trace_summary.py /tmp/$name.json.tsv --around FmhaDecodeSliced --occurrence $o --after 3; done > $W/${name}_around.txt 2>&1
  cat $W/${name}_around.txt | cut -c1-120
}
run as_is TESSERA_PDL=1
run weights_late TESSERA_WEIGHTS_EARLY=0
run decode_late TESSERA_DECODE_EARLY_START=0
date +%T
