#!/usr/bin/env bash
# Session 49, run 2: the traced build of run 1. Batch 1, prompt 2048, graphs: the tuner's choice, then every
# decode attention candidate forced, each step's per-block timeline summarised (bench/trace_summary.py).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s49/tessera_trace.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --batch 1 --cuda-graph"
export TESSERA_CACHE_DIR=/tmp/tc; rm -rf /tmp/tc; mkdir -p /tmp/tc
W=/tmp/r2; mkdir -p $W
run() {  # name, then bench-model flags
  local name=$1; shift
  timeout 120 $M "$@" --trace $W/$name.json > $W/$name.log 2>&1
  echo "$name rc $? $(grep -E '^[0-9]+ +[0-9]+ ' $W/$name.log | awk '{printf "%s ms a step, %s tok/s", $6, $5}')"
  python3 bench/trace_summary.py $W/$name.json.tsv > $W/${name}_summary.txt 2>&1 || echo "summary failed"
  python3 bench/trace_summary.py $W/$name.json.tsv --launches > $W/${name}_launches.txt 2>&1
  grep -E "burst|FmhaDecode|DecodeMerge|dependency waits" $W/${name}_summary.txt
  xz -T4 -6 $W/$name.json
}
run tuned --decode-steps 32
for c in sliced_bn64_s3_x2 sliced_bn64_s3_x2_short sliced_bn64_s4 bn64_s3_x2 bn64_s4 bn64_s3_x2_short bn64_s4_short bn32_s6_x2 bn32_s6_x2_short; do
  TESSERA_AUTOTUNE_FORCE=fmha_decode:$c run forced_$c --decode-steps 16
done
run tuned_again --decode-steps 32
date +%T
tar -C /tmp -cf $OUT/run2.tar r2
