#!/usr/bin/env bash
# Session 60, run 3: s59f (main at 453cbdf) against s60a, alternated: mla_decode (the exchange through the spent
# rope tile) and the engine's decode steps at batch 1, 8, 16, 32 (the tuner's short near-ties), each binary
# with its own fresh tuning cache.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s59f/tessera.xz > $B/tessera_old; chmod +x $B/tessera_old
xz -dc ../../../.device/s60a/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run3; mkdir -p $R
rm -rf /tmp/tc_old /tmp/tc_new
bin() { [ $1 = old ] && echo $B/tessera_old || echo $B/tessera; }
MLA=mla_decode:64x4096,mla_decode:128x4096,mla_decode:64x8192,mla_decode:128x8192,mla_decode:64x32768
for r in 1 2 3; do
  for v in old new; do
    TESSERA_CACHE_DIR=/tmp/tc_$v timeout 120 $(bin $v) bench mla_decode --shapes $MLA --out /tmp/x > /dev/null 2>&1; echo "mla $v $r rc $?"
    cp /tmp/x/bench.md $R/mla_${v}_$r.md; grep -E "^\| mla" /tmp/x/bench.md | cut -d'|' -f3,4,5 | tr -s ' ' | tr '\n' ';'; echo
  done
done
date +%T
A="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
for r in 1 2; do
  for v in old new; do
    TESSERA_CACHE_DIR=/tmp/tc_$v timeout 150 $(bin $v) $A --batch 1 --decode-steps 64 > $R/b1_${v}_$r.log 2>&1; echo "b1 $v $r rc $?: $(grep -E '^1 ' $R/b1_${v}_$r.log)"
    TESSERA_CACHE_DIR=/tmp/tc_$v timeout 150 $(bin $v) $A --batch 8,16,32 --decode-steps 32 > $R/b8_32_${v}_$r.log 2>&1; echo "b8-32 $v $r rc $?"
    grep -E '^(8|16|32) ' $R/b8_32_${v}_$r.log
  done
done
python3 - <<'PY'
import json
for v in ('old', 'new'):
    d = json.load(open(f'/tmp/tc_{v}/autotune.json'))['entries']
    print(v, {k.split('|')[-1]: v2['choice'] for k, v2 in d.items() if '|matmul|' in k and k.split('|')[-1].startswith(('m1_', 'm8_', 'm16_', 'm32_'))})
PY
cp /tmp/tc_new/autotune.json $R/autotune_new.json; cp /tmp/tc_old/autotune.json $R/autotune_old.json
date +%T
