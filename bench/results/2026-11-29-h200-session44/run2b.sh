#!/usr/bin/env bash
# Session 44, run 2b: the engine (Llama-3.1-8B shapes, random weights) tuned from an empty cache, then A/B in the
# same binary: the tuned cache against a copy whose matmul_silu_and_mul entries at 8 and 32 rows keep the
# choice the configuration space without the one-wave GLU made (the unfused pair).
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc r2/tessera.xz > bin/tessera; chmod +x bin/tessera
nvidia-smi -L; date +%T
cd ..
M="./.device/bin/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --batch 1,8,32 --cuda-graph"
echo "== tuned from an empty cache"; date +%T
rm -rf /tmp/tc_new /tmp/tc_old
TESSERA_CACHE_DIR=/tmp/tc_new timeout 200 $M > $OUT/run2b_tuned.log 2>&1; echo "rc $?"; grep -E "^[0-9]|tokens/s" $OUT/run2b_tuned.log | tail -8
cp /tmp/tc_new/autotune.json $OUT/run2b_autotune_model.json
mkdir -p /tmp/tc_old
python3 - <<'PY'
import json
d = json.load(open('/tmp/tc_new/autotune.json'))
for k, v in d['entries'].items():
    if '|matmul_silu_and_mul|' in k and ('|m8_' in k or '|m32_' in k):
        print(k, v['choice'], {n: round(t, 1) for n, t in v['timings'].items()})
        v['choice'] = 'unfused'; v['us'] = v['timings']['unfused']
json.dump(d, open('/tmp/tc_old/autotune.json', 'w'), indent=1)
PY
for round in 1 2; do
  for which in new old; do
    echo "== $which, round $round"; date +%T
    TESSERA_CACHE_DIR=/tmp/tc_$which timeout 200 $M > $OUT/run2b_${which}_$round.log 2>&1; echo "rc $?"; grep -E "^[0-9]|tokens/s" $OUT/run2b_${which}_$round.log | tail -8
  done
done
date +%T
