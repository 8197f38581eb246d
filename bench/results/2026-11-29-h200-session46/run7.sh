#!/usr/bin/env bash
# Session 46, run 7: at M = 16 the read flush has the tuner take staged tiles where the written flush took
# swap-AB (16 x 4096 x 4096: 0.88x cuBLAS in the sweep's back-to-back graphs against 0.97-0.99x). Which is faster
# in a batch-16 decode step? The cache as tuned (A), and the same cache with every M = 16 matmul that chose a
# staged kernel set to its fastest swap-AB candidate (B), alternated.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s46/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
step() { grep -E '^[0-9]+ +2048' $1 | awk '{printf "b%s %s ms  ", $1, $6}'; }
rm -rf /tmp/tcA /tmp/tcB; mkdir -p /tmp/tcA /tmp/tcB
TESSERA_CACHE_DIR=/tmp/tcA timeout 200 $M --batch 16 > /tmp/r.log 2>&1; echo "tuned rc $? $(step /tmp/r.log)"
python3 - <<'PY'
import json
d = json.load(open('/tmp/tcA/autotune.json'))
for k, v in d['entries'].items():
    if '|m16_' in k and '|matmul' in k:
        swap = {n: t for n, t in v['timings'].items() if n.startswith('swapab')}
        new = min(swap, key=swap.get) if swap and v['choice'].startswith('staged') else v['choice']
        print(k.split('|', 1)[1], v['choice'], round(v['us'], 1), '-> B:', new, round(v['timings'][new], 1))
        v['choice'], v['us'] = new, v['timings'][new]
json.dump(d, open('/tmp/tcB/autotune.json', 'w'), indent=1)
PY
for round in 1 2 3 4; do
  for c in A B; do
    TESSERA_CACHE_DIR=/tmp/tc$c timeout 100 $M --batch 16 > /tmp/r.log 2>&1
    echo "$c round $round rc $? $(step /tmp/r.log)"
  done
done
python3 -c "
import json
d = json.load(open('/tmp/tcB/autotune.json'))['entries']
print('B after the rounds:', sorted(set(v['choice'] for k, v in d.items() if '|m16_' in k and '|matmul' in k)))
"
date +%T
