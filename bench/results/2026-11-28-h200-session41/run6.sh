#!/usr/bin/env bash
# Session 41, run 6: a seventh 64-key stage offered for 192/128 prefill (experiment): tuner choices and times.
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc exp/libtessera.so.xz > bin/libtessera.so
nvidia-smi -L; date +%T
cd ../bench
for i in 1 2; do
TESSERA_CACHE_DIR=/tmp/tc6_$i timeout 200 python3 gpu_bench.py --lib ../.device/bin/libtessera.so --prefill-only --head-dims 192 --out /tmp/p6 > $OUT/prefill_$i.log 2>&1; echo "rc $?"
grep -E "^fmha" $OUT/prefill_$i.log
python3 -c "
import json;d=json.load(open('/tmp/tc6_$i/autotune.json'))['entries']
for k,v in d.items():
    if 'fmha' in k: print(k.split('|')[-2:], v['choice'], {c: round(t,1) for c,t in v['timings'].items()})
"
done
date +%T
