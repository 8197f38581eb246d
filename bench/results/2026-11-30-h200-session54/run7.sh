#!/usr/bin/env bash
# Session 54, run 7: run 6's step comparison (s54z with rows1_bn4_x4_chunked against s54b) repeated with fresh
# tuner caches every round, so that one tuning's near-ties (decode attention's configurations among them) cannot
# decide it; each round prints the tuner's choices for the one-row matmuls and decode attention.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s54z/tessera.xz > $B/tessera
xz -dc ../../../.device/s54b/tessera.xz > $B/tessera_main; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
run_as() {
  local m=$1; shift
  local bin=$B/tessera; [ $m = main ] && bin=$B/tessera_main
  TESSERA_CACHE_DIR=/tmp/tc_$m timeout 200 $bin "$@"
}
choices() {
  python3 -c "
import json,sys
d=json.load(open('/tmp/tc_$1/autotune.json'))
e=d.get('entries',d)
print('  $1:', '; '.join(k.split('|',1)[1]+' '+v['choice'] for k,v in e.items() if ('m1_' in k or 'fmha_decode' in k) and isinstance(v,dict) and 'choice' in v))
"
}
for round in 1 2 3; do
  rm -rf /tmp/tc_*; mkdir -p /tmp/tc_main /tmp/tc_new
  for m in main new; do run_as $m bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1 --decode-steps 8 > /dev/null 2>&1; done
  for rep in 1 2; do
    for m in main new; do
      run_as $m bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1 > /tmp/bm.log 2>&1
      echo "round $round $m rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms; ", $1, $6}')"
      cat /tmp/bm.log >> $OUT/run7_bench_model_$m.log
    done
  done
  choices main; choices new
  cp /tmp/tc_main/autotune.json $OUT/run7_round${round}_cache_main.json; cp /tmp/tc_new/autotune.json $OUT/run7_round${round}_cache_new.json
done
date +%T
