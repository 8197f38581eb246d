#!/usr/bin/env bash
# Session 56, run 3 (run 2 with decode attention forced to the sliced kernel, whose tuner had picked the staged one): the sliced decode kernel merges its own splits (the block that stores a group's last split
# combines them; no DecodeMerge launch) against DecodeMerge (TESSERA_DECODE_MERGE=kernel), one binary (build
# s56m: sm_90a only), each mode with its own tuner cache. `run2.sh tests`: the GPU suite's attention tests of the
# same build first.
set -u
MODE=${1:-ab}
cd "$(dirname "$0")"
HERE=$PWD
B=$PWD/bin; mkdir -p $B
nvidia-smi -L; date +%T
if [ "$MODE" = tests ]; then
  xz -dc ../../../.device/s56m/tessera_gpu_tests.xz > $B/tessera_gpu_tests; chmod +x $B/*
  cd ../../..
  for m in block kernel; do
    TESSERA_DECODE_MERGE=$m TESSERA_CACHE_DIR=/tmp/tct_$m timeout 250 $B/tessera_gpu_tests --gtest_brief=1 --gtest_filter='*ttention*:*Decode*:*decode*:*Mla*' > $OUT/gpu_tests_$m.log 2>&1
    echo "attention gpu tests ($m) rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran" $OUT/gpu_tests_$m.log | tail -n 8
  done
  cd $HERE
fi
xz -dc ../../../.device/s56m/tessera.xz > $B/tessera; chmod +x $B/tessera
cd ../../..
M="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
export TESSERA_AUTOTUNE_FORCE=fmha_decode:${FORCE:-sliced_bn64_s3_x2_short}
for m in block kernel; do TESSERA_DECODE_MERGE=$m TESSERA_CACHE_DIR=/tmp/tc_$m timeout 150 $B/tessera $M --batch 1 --decode-steps 16 > /dev/null 2>&1; done
for r in 1 2 3 4; do
  for m in block kernel; do
    TESSERA_DECODE_MERGE=$m TESSERA_CACHE_DIR=/tmp/tc_$m timeout 150 $B/tessera $M --batch 1,8 --decode-steps 64 2>/dev/null | grep -E '^[0-9]+ +[0-9]+ ' | awk -v m=$m '{printf "%s batch %s: %s ms; ", m, $1, $6} END {print ""}'
  done
done
for m in block kernel; do
  TESSERA_DECODE_MERGE=$m TESSERA_CACHE_DIR=/tmp/tc_$m timeout 120 $B/tessera $M --batch 1,4 --decode-steps 32 --prompt-len 32768 2>/dev/null | grep -E '^[0-9]+ +[0-9]+ ' | awk -v m=$m '{printf "%s after 32k batch %s: %s ms\n", m, $1, $6}'
done
for m in block kernel; do python3 -c "
import json,sys
d=json.load(open('/tmp/tc_$m/autotune.json'))
d=d.get('entries',d)
for k,v in d.items():
    if 'fmha_decode' in k: print('$m', k, json.dumps(v)[:160])
" 2>&1 | head -n 6; done
for m in block kernel; do
  TESSERA_DECODE_MERGE=$m TESSERA_CACHE_DIR=/tmp/tc_$m timeout 200 $B/tessera bench fmha_decode --dtype bf16 \
    --shapes 1x2048x32x8x128,1x8192x32x8x128,8x8192x32x8x128,1x32768x32x8x128 --out /tmp/fd_$m > /tmp/fd_$m.log 2>&1
  echo "decode attention $m rc $?"; grep -E "^\| fmha_decode" /tmp/fd_$m/bench.md | awk -F'|' '{printf "%s %s us;", $3, $4} END {print ""}'
  cp /tmp/fd_$m/bench.md $OUT/decode_bench_$m.md
done
date +%T
