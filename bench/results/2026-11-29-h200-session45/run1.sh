#!/usr/bin/env bash
# Session 45, run 1: few-rows matmul and SwiGLU kernels that prefetch their first weight tiles into L2 before
# waiting for the kernel before them; the engine at batch 1 (and 8), base = the CLI built before the change,
# new = with it, each tuned from an empty cache, then alternated.
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc s45/tessera_base.xz > bin/tessera_base; xz -dc s45/tessera_new.xz > bin/tessera_new; chmod +x bin/*
nvidia-smi -L; nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv,noheader; date +%T
cd ..
M="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
for which in base new; do
  rm -rf /tmp/tc_$which
  TESSERA_CACHE_DIR=/tmp/tc_$which timeout 150 ./.device/bin/tessera_$which $M --batch 1,8 > $OUT/tune_$which.log 2>&1
  echo "$which tuned rc $? $(grep -E '^(1|8) ' $OUT/tune_$which.log | awk '{printf "b%s %s ms  ", $1, $6}')"
  cp /tmp/tc_$which/autotune.json $OUT/autotune_$which.json
  python3 - $which <<'PY'
import json, sys
d = json.load(open(f'/tmp/tc_{sys.argv[1]}/autotune.json'))
for k, v in sorted(d['entries'].items()):
    if '|m1_' in k or '|m1|' in k or 'm1x' in k:
        print('  ', k, v['choice'], {n: round(t, 1) for n, t in v.get('timings', {}).items()})
PY
done
date +%T
for round in 1 2 3 4; do
  for which in base new; do
    TESSERA_CACHE_DIR=/tmp/tc_$which timeout 100 ./.device/bin/tessera_$which $M --batch 1 > /tmp/r.log 2>&1
    echo "$which $round rc $? $(grep -E '^1 ' /tmp/r.log | awk '{printf "b%s %s ms  ", $1, $6}')"
  done
done
date +%T
