#!/usr/bin/env bash
# Session 45, run 7: run 6's lead, alternated more: the batch-1 (and batch-4) step with the tuned decode
# attention against two forced configurations.
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc s45/tessera_new.xz > bin/tessera; chmod +x bin/*
nvidia-smi -L; date +%T
cd ..
export TESSERA_L2_PREFETCH=0 TESSERA_CACHE_DIR=/tmp/tc
M="./.device/bin/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
timeout 120 $M --batch 1,4 > /tmp/r.log 2>&1; echo "tuned rc $? $(grep -E '^(1|4) ' /tmp/r.log | awk '{printf "b%s %s ms  ", $1, $6}')"
python3 -c "
import json
d=json.load(open('/tmp/tc/autotune.json'))
for k,v in d['entries'].items():
    if 'decode' in k: print(k, v['choice'], {n: round(t,1) for n,t in v.get('timings',{}).items()})
"
for round in 1 2 3 4 5; do
  for c in tuned bn32_s6_x2_short sliced_bn64_s3_x2_short; do
    case $c in tuned) E="X=1";; *) E="TESSERA_AUTOTUNE_FORCE=fmha_decode:$c";; esac
    env $E timeout 100 $M --batch 1,4 > /tmp/r.log 2>&1
    echo "$c round $round rc $? $(grep -E '^(1|4) ' /tmp/r.log | awk '{printf "b%s %s ms  ", $1, $6}')"
  done
done
date +%T
