#!/usr/bin/env bash
# Session 56, run 1: the traced build of main (668c263's code, -DTESSERA_TILE_TRACE=ON, sm_90a only): where a
# batch-1 decode step's time goes now, after sessions 50-55 (dependent starts, chunk sums, read_once, inputs in
# one copy). Batch 1 prompt 2048 with graphs (twice), batch 1 after a 32k prompt, batch 8. Tables come back.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s56/tessera_trace.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
export TESSERA_CACHE_DIR=/tmp/tc; rm -rf /tmp/tc; mkdir -p /tmp/tc
W=$OUT/run1; mkdir -p $W
run() {  # name, then bench-model flags
  local name=$1; shift
  timeout 150 $M "$@" --trace /tmp/$name.json > $W/$name.log 2>&1
  echo "$name rc $? $(grep -E '^[0-9]+ +[0-9]+ ' $W/$name.log | awk '{printf "%s ms a step, %s tok/s; ", $6, $5}')"
  cp /tmp/$name.json.tsv $W/
  python3 bench/trace_summary.py /tmp/$name.json.tsv > $W/${name}_summary.txt 2>&1 || echo "summary failed"
  python3 bench/trace_summary.py /tmp/$name.json.tsv --launches > $W/${name}_launches.txt 2>&1
  sed -n '1,14p' $W/${name}_summary.txt | tail -n 13
  sed -n '40,52p' $W/${name}_launches.txt | cut -c1-150
}
run b1 --batch 1 --decode-steps 32
run b1_again --batch 1 --decode-steps 32
run b1_32k --batch 1 --prompt-len 32768 --decode-steps 16
run b8 --batch 8 --decode-steps 16
date +%T
