#!/usr/bin/env bash
# Session 49, run 1: the kernel trace (a build configured with -DTESSERA_TILE_TRACE=ON): Llama-3.1-8B shapes
# with random weights, the last decode step's per-block timeline at batch 1 (prompt 2048, graphs and eager),
# batch 8, and batch 1 after a 32k prompt; bench/trace_summary.py on each.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s49/tessera_trace.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16"
export TESSERA_CACHE_DIR=/tmp/tc; rm -rf /tmp/tc; mkdir -p /tmp/tc
run() {  # name, then bench-model flags
  local name=$1; shift
  timeout 200 $M "$@" --trace $OUT/$name.json > $OUT/$name.log 2>&1
  echo "$name rc $? $(grep -E '^[0-9]+ +[0-9]+ ' $OUT/$name.log | awk '{printf "b%s prompt %s: %s ms a step, %s tok/s; ", $1, $2, $6, $5}')"
  python3 bench/trace_summary.py $OUT/$name.json.tsv > $OUT/${name}_summary.txt 2>&1 || echo "summary failed"
  python3 bench/trace_summary.py $OUT/$name.json.tsv --launches > $OUT/${name}_launches.txt 2>&1
  head -n 30 $OUT/${name}_summary.txt
  xz -T4 -6 $OUT/$name.json
  date +%T
}
run b1_graph --batch 1 --cuda-graph
run b1_graph_again --batch 1 --cuda-graph
run b1_eager --batch 1 --decode-steps 16
run b8_graph --batch 8 --cuda-graph --decode-steps 32
run b1_32k_graph --batch 1 --prompt-len 32768 --decode-steps 16 --cuda-graph
