#!/usr/bin/env bash
# Session 49, run 4: the traced build of run 3 plus a mark where the first consumer warpgroup returns (its epilogue done; a
# local change, committed after this run). Batch 1 (prompt 2048, graphs): the tuner's choice and two forced decode
# configurations; batch 1 after a 32k prompt. Only the tables and summaries come back (one tar).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s49/tessera_trace_consumer.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --batch 1 --cuda-graph"
export TESSERA_CACHE_DIR=/tmp/tc; rm -rf /tmp/tc; mkdir -p /tmp/tc
W=/tmp/run4; mkdir -p $W
run() {  # name, then bench-model flags
  local name=$1; shift
  timeout 150 $M "$@" --trace $W/$name.json > $W/$name.log 2>&1
  echo "$name rc $? $(grep -E '^[0-9]+ +[0-9]+ ' $W/$name.log | awk '{printf "%s ms a step, %s tok/s", $6, $5}')"
  python3 bench/trace_summary.py $W/$name.json.tsv > $W/${name}_summary.txt 2>&1 || echo "summary failed"
  python3 bench/trace_summary.py $W/$name.json.tsv --launches > $W/${name}_launches.txt 2>&1
  grep -E "burst|FmhaDecode|DecodeMerge|dependency waits" $W/${name}_summary.txt
  grep -E "FmhaDecode|Qkv" $W/${name}_launches.txt | sed -n '9,12p' | cut -c1-150
  python3 - $W/$name.json > $W/${name}_attention_blocks.txt <<'PY'
import json, sys, collections, statistics as st
ev = json.load(open(sys.argv[1]))['traceEvents']
by = collections.defaultdict(list)
for e in ev: by[e['args']['launch']].append(e)
att = [es for l, es in sorted(by.items(), key=lambda kv: min(e['ts'] for e in kv[1])) if 'FmhaDecode' in es[0]['name']]
print("per layer: medians over the attention blocks of us after each block was ready: full, loop done, consumer done, end; spread of ends")
for i, es in enumerate(att):
    m = lambda k: st.median([e['args'][k] - e['args']['ready_us'] for e in es if k in e['args']] or [float('nan')])
    ends = [e['ts'] + e['dur'] for e in es]
    print(f"{i:3d} {len(es):4d} full {m('first_full_us'):6.2f} loop {m('loop_done_us'):6.2f} consumer {m('consumer_done_us'):6.2f} end {st.median(e['dur'] - e['args']['ready_us'] for e in es):6.2f} spread {max(ends) - min(ends):6.2f}")
PY
  head -n 8 $W/${name}_attention_blocks.txt
  xz -T8 -6 $W/$name.json
}
run tuned --decode-steps 32
TESSERA_AUTOTUNE_FORCE=fmha_decode:bn64_s4 run forced_bn64_s4 --decode-steps 16
TESSERA_AUTOTUNE_FORCE=fmha_decode:sliced_bn64_s3_x2_short run forced_sliced_short --decode-steps 16
run prompt32k --prompt-len 32768 --decode-steps 16
date +%T
rm -f $W/*.json.xz
tar -C /tmp -cf $OUT/run4.tar run4
