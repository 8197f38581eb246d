#!/usr/bin/env bash
# Session 56, run 6: which decode attention configuration makes the fastest batch-1 step (prompt 2048)? The
# tuner's pick (it times each alone, after an L2 flush) is a near-tie resolved by noise (run 2: staged
# bn64_s4_short; traced runs: the sliced kernel). Main's binary (build of ad4c680, the code of HEAD), one tuner
# cache; each configuration forced, three alternated rounds.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s56b/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1"
export TESSERA_CACHE_DIR=/tmp/tc6; rm -rf /tmp/tc6
timeout 150 $M --decode-steps 16 > /dev/null 2>&1
python3 -c "
import json; d=json.load(open('/tmp/tc6/autotune.json')); d=d.get('entries',d)
print([(k.split('|')[-1], v.get('choice')) for k,v in d.items() if 'fmha_decode' in k])"
C="tuned sliced_bn64_s3_x2_short sliced_bn64_s3_x2 sliced_bn64_s4 bn64_s4_short bn64_s3_x2_short bn32_s6_x2_short bn64_s4"
for r in 1 2 3; do
  for c in $C; do
    if [ $c = tuned ]; then F=; else F=fmha_decode:$c; fi
    TESSERA_AUTOTUNE_FORCE=$F timeout 100 $M --decode-steps 64 2>/dev/null | grep -E '^[0-9]+ +[0-9]+ ' | awk -v c=$c '{printf "%s %s; ", c, $6}'
  done
  echo
done
date +%T
