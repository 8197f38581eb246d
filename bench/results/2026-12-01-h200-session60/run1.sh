#!/usr/bin/env bash
# Session 60, run 1: which M <= 64 matmul configuration is fastest back to back (the bench, rotated weights)
# and in the decode step, against the tuner's own cold ranking. Build s59f (main at 453cbdf).
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s59f/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run1; mkdir -p $R
S=8x4096x4096,16x4096x4096,32x4096x4096,64x4096x4096,16x6144x4096,16x14336x4096,16x4096x14336,64x14336x4096
row() { grep -E '^\| matmul' /tmp/x/bench.md | cut -d'|' -f3,4,11 | tr -s ' ' | tr '\n' ';'; }
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
timeout 90 $B/tessera bench matmul --shapes $S --out /tmp/x > /dev/null 2>&1; echo "tuned rc $?: $(row)"
cp /tmp/x/bench.md $R/tuned.md; cp $TESSERA_CACHE_DIR/autotune.json $R/autotune_bench.json
for c in staged_bm64_bn128 swapab_bw64_bk128_wave swapab_bw64_bk128 swapab_bw128_bk64; do
  TESSERA_AUTOTUNE_FORCE=matmul:$c timeout 90 $B/tessera bench matmul --shapes $S --out /tmp/x > /dev/null 2>&1
  echo "$c rc $?: $(row)"
done
date +%T
for b in 16 4; do
  A="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch $b --prompt-len $((64 / b)) --decode-steps 32"
  rm -rf /tmp/tc_a /tmp/tc_b /tmp/tc_c
  for r in 1 2; do
    TESSERA_CACHE_DIR=/tmp/tc_a timeout 120 $B/tessera $A > $R/b${b}_tuned_$r.log 2>&1; echo "b$b tuned $r rc $?: $(grep -E "^$b " $R/b${b}_tuned_$r.log)"
    TESSERA_CACHE_DIR=/tmp/tc_b TESSERA_AUTOTUNE_FORCE=matmul:swapab_bw64_bk128_wave timeout 120 $B/tessera $A > $R/b${b}_swapab_$r.log 2>&1
    echo "b$b swapab $r rc $?: $(grep -E "^$b " $R/b${b}_swapab_$r.log)"
    TESSERA_CACHE_DIR=/tmp/tc_c TESSERA_AUTOTUNE_FORCE=matmul:staged_bm64_bn128 timeout 120 $B/tessera $A > $R/b${b}_staged_$r.log 2>&1
    echo "b$b staged $r rc $?: $(grep -E "^$b " $R/b${b}_staged_$r.log)"
  done
  python3 -c "
import json;d=json.load(open('/tmp/tc_a/autotune.json'))['entries']
for k,v in d.items():
  if '|matmul|' in k: print(k.split('|')[-1], v['choice'], {n:round(t,1) for n,t in v['timings'].items()})"
done
date +%T
