#!/usr/bin/env bash
# Session 46, run 1: the tuner's flush by reading (clean L2 lines, as a decode step leaves them) against the
# flush by writing (TESSERA_TUNE_FLUSH=write, main's). Each tunes from an empty cache: the engine's step at
# batch 1, 4, 8, then alternated rounds; the tuned choices; the matmul sweep against cuBLAS.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera libtessera.so; do xz -dc ../../../.device/s46/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
cd ../../..
PART=${1:-all}
if [ $PART != sweep ]; then
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
step() { grep -E '^(1|4|8) ' $1 | awk '{printf "b%s %s ms  ", $1, $6}'; }
for mode in write read; do
  rm -rf /tmp/tc_$mode; mkdir -p /tmp/tc_$mode
  TESSERA_TUNE_FLUSH=$mode TESSERA_CACHE_DIR=/tmp/tc_$mode timeout 240 $M --batch 1,4,8 > $OUT/run1_tune_$mode.log 2>&1
  echo "$mode tuned rc $? $(step $OUT/run1_tune_$mode.log)"
  cp /tmp/tc_$mode/autotune.json $OUT/run1_autotune_model_$mode.json
done
date +%T
for round in 1 2 3 4; do
  for mode in write read; do
    TESSERA_CACHE_DIR=/tmp/tc_$mode timeout 100 $M --batch 1,4,8 > /tmp/r.log 2>&1
    echo "$mode round $round rc $? $(step /tmp/r.log)"
  done
done
date +%T
python3 - <<'PY'
import json
a = json.load(open('/tmp/tc_write/autotune.json'))['entries']; b = json.load(open('/tmp/tc_read/autotune.json'))['entries']
for k in sorted(set(a) | set(b)):
    ca, cb = a.get(k, {}), b.get(k, {})
    mark = "" if ca.get('choice') == cb.get('choice') else "  <- differs"
    print(f"{k.split('|',1)[1]}: write {ca.get('choice')} {ca.get('us',0):.1f}  read {cb.get('choice')} {cb.get('us',0):.1f}{mark}")
PY
date +%T
fi
if [ $PART != engine ]; then
cd bench
for mode in write read; do
  rm -rf /tmp/tcs_$mode /tmp/sweep_$mode; mkdir -p /tmp/sweep_$mode
  TESSERA_TUNE_FLUSH=$mode TESSERA_CACHE_DIR=/tmp/tcs_$mode timeout 230 python3 matmul_bench.py --lib $B/libtessera.so --no-glu --out /tmp/sweep_$mode > $OUT/run1_sweep_$mode.log 2>&1
  echo "$mode sweep rc $? $(grep -i 'median' $OUT/run1_sweep_$mode.log | tail -1)"
  cp /tmp/sweep_$mode/matmul_bench.md $OUT/run1_sweep_$mode.md; cp /tmp/tcs_$mode/autotune.json $OUT/run1_autotune_sweep_$mode.json
done
date +%T
fi
