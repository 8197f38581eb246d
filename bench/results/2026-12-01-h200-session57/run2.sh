#!/usr/bin/env bash
# Session 57, run 2: two experiment-only switches (not committed; experiment_run2.diff) on main's code:
#   TESSERA_EXPERIMENT_LATE_O=1          the o projection without its early weight loads (DecodeMerge before it
#                                        then has the memory to itself: 4.2 us against ~5.8 in session 56, run 5)
#   TESSERA_EXPERIMENT_SHORT_TILES=1     decode attention's short splits at least 1 key tile instead of 2
# Batch 1, prompt 2048, alternated rounds, one tuner cache (the split length changes the tuner's key? no: the
# key is shapes only, so the cached choice of configuration stays and only its split count moves).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s57b/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
export TESSERA_CACHE_DIR=/tmp/tc2; rm -rf /tmp/tc2
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1"
timeout 150 $M --decode-steps 16 > /dev/null 2>&1
python3 -c "
import json; d=json.load(open('/tmp/tc2/autotune.json')); d=d.get('entries',d)
print([(k.split('|')[-1], v.get('choice')) for k,v in d.items() if 'fmha_decode' in k])"
for r in 1 2 3 4; do
  for mode in main late_o short1 short1_forced late_o_short1_forced; do
    unset TESSERA_EXPERIMENT_LATE_O TESSERA_EXPERIMENT_SHORT_TILES TESSERA_AUTOTUNE_FORCE
    case $mode in
      late_o) export TESSERA_EXPERIMENT_LATE_O=1;;
      short1) export TESSERA_EXPERIMENT_SHORT_TILES=1;;
      short1_forced) export TESSERA_EXPERIMENT_SHORT_TILES=1 TESSERA_AUTOTUNE_FORCE=fmha_decode:sliced_bn64_s3_x2_short;;
      late_o_short1_forced) export TESSERA_EXPERIMENT_LATE_O=1 TESSERA_EXPERIMENT_SHORT_TILES=1 TESSERA_AUTOTUNE_FORCE=fmha_decode:sliced_bn64_s3_x2_short;;
    esac
    timeout 100 $M --decode-steps 64 2>/dev/null | grep -E '^[0-9]+ +[0-9]+ ' | awk -v c="$mode" '{printf "%s %s; ", c, $6}'
  done
  echo
done
unset TESSERA_EXPERIMENT_LATE_O TESSERA_EXPERIMENT_SHORT_TILES TESSERA_AUTOTUNE_FORCE
for c in sliced_bn64_s3_x2_short bn64_s3_x2_short; do
  TESSERA_AUTOTUNE_FORCE=fmha_decode:$c timeout 100 $M --decode-steps 64 2>/dev/null | grep -E '^[0-9]+ +[0-9]+ ' | awk -v c="$c" '{printf "%s %s; ", c, $6}'
done
echo; date +%T
