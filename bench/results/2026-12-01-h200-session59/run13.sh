#!/usr/bin/env bash
# Session 59, run 13: does the tuner's staged_bm64_bn128 pick at M = 8 x 4096 x 4096 (run 12) cost the batch-8
# decode step? Llama-3.1-8B shapes, batch 8, prompt 8 (every matmul M <= 64, so swap-AB is a candidate of all),
# tuned against every matmul forced to swapab_bw64_bk128_wave, alternated. Build s59f.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s59f/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run13; mkdir -p $R
A="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 8 --prompt-len 8 --decode-steps 32"
rm -rf /tmp/tc_a /tmp/tc_b
for r in 1 2; do
  TESSERA_CACHE_DIR=/tmp/tc_a timeout 120 $B/tessera $A > $R/tuned_$r.log 2>&1; echo "tuned $r rc $?: $(grep -E '^8 ' $R/tuned_$r.log)"
  TESSERA_CACHE_DIR=/tmp/tc_b TESSERA_AUTOTUNE_FORCE=matmul:swapab_bw64_bk128_wave timeout 120 $B/tessera $A > $R/swapab_$r.log 2>&1
  echo "swapab $r rc $?: $(grep -E '^8 ' $R/swapab_$r.log)"
done
python3 -c "
import json;d=json.load(open('/tmp/tc_a/autotune.json'))['entries']
print({k.split('|')[-1]:v['choice'] for k,v in d.items() if '|matmul|' in k})"
date +%T
