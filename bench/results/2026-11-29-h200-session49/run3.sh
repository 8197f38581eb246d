#!/usr/bin/env bash
# Session 49, run 3: the traced build of 52f2a7c (with the pipeline's marks: first copies issued, first stage
# full, last stage released). Batch 1 (prompt 2048, graphs): the tuner's choice and two forced decode
# configurations; batch 1 after a 32k prompt. Only the tables and summaries come back (one tar).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s49/tessera_trace_marks.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --batch 1 --cuda-graph"
export TESSERA_CACHE_DIR=/tmp/tc; rm -rf /tmp/tc; mkdir -p /tmp/tc
W=/tmp/run3; mkdir -p $W
run() {  # name, then bench-model flags
  local name=$1; shift
  timeout 150 $M "$@" --trace $W/$name.json > $W/$name.log 2>&1
  echo "$name rc $? $(grep -E '^[0-9]+ +[0-9]+ ' $W/$name.log | awk '{printf "%s ms a step, %s tok/s", $6, $5}')"
  python3 bench/trace_summary.py $W/$name.json.tsv > $W/${name}_summary.txt 2>&1 || echo "summary failed"
  python3 bench/trace_summary.py $W/$name.json.tsv --launches > $W/${name}_launches.txt 2>&1
  grep -E "burst|FmhaDecode|DecodeMerge|dependency waits" $W/${name}_summary.txt
  grep -E "FmhaDecode|Qkv" $W/${name}_launches.txt | sed -n '9,12p' | cut -c1-140
  xz -T8 -6 $W/$name.json
}
run tuned --decode-steps 32
TESSERA_AUTOTUNE_FORCE=fmha_decode:bn64_s4 run forced_bn64_s4 --decode-steps 16
TESSERA_AUTOTUNE_FORCE=fmha_decode:sliced_bn64_s3_x2_short run forced_sliced_short --decode-steps 16
run prompt32k --prompt-len 32768 --decode-steps 16
date +%T
mv $W/tuned.json.xz $OUT/run3_tuned.json.xz; rm -f $W/*.json.xz
tar -C /tmp -cf $OUT/run3.tar run3
