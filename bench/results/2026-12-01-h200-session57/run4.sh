#!/usr/bin/env bash
# Session 57, run 4: run 3 again after two changes to the few-rows kernels (build s57d): the deferred norm's reads
# (the sums of squares, the norm's weight) asked for before the k loop instead of at each block's end, and the
# residual likewise (TESSERA_EXPERIMENT_TAIL_RESIDUAL=1: at the end, as main does; an experiment switch).
# Four modes alternated at batch 1, one tuner cache: deferred + early residual (this build's default), kernels
# (TESSERA_DEFERRED_NORMS=0) + early residual, deferred + tail residual, kernels + tail residual (= main).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s57d/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc_t
TESSERA_CACHE_DIR=/tmp/tc_t timeout 200 $B/tessera_gpu_tests --gtest_brief=1 \
  --gtest_filter='MatmulGpu.Deferred*:MatmulGpu.EveryFewRows*:MatmulGpu.FewRowsWithSettled*:MatmulGpu.SiluAndMul*:Engine*' \
  > $OUT/run4_gpu_tests.log 2>&1
echo "gpu tests rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure" $OUT/run4_gpu_tests.log | head -n 20
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
export TESSERA_CACHE_DIR=/tmp/tc4; rm -rf /tmp/tc4
timeout 150 $M --batch 1 --decode-steps 16 > /dev/null 2>&1
TESSERA_DEFERRED_NORMS=0 timeout 150 $M --batch 1 --decode-steps 16 > /dev/null 2>&1
for r in 1 2 3 4; do
  for mode in deferred kernels deferred_tail kernels_tail; do
    unset TESSERA_DEFERRED_NORMS TESSERA_EXPERIMENT_TAIL_RESIDUAL
    case $mode in
      kernels) export TESSERA_DEFERRED_NORMS=0;;
      deferred_tail) export TESSERA_EXPERIMENT_TAIL_RESIDUAL=1;;
      kernels_tail) export TESSERA_DEFERRED_NORMS=0 TESSERA_EXPERIMENT_TAIL_RESIDUAL=1;;
    esac
    timeout 100 $M --batch 1 --decode-steps 64 2>/dev/null | grep -E '^[0-9]+ +[0-9]+ ' | awk -v c="$mode" '{printf "%s %s; ", c, $6}'
  done
  echo
done
unset TESSERA_DEFERRED_NORMS TESSERA_EXPERIMENT_TAIL_RESIDUAL
for mode in early tail; do
  if [ $mode = tail ]; then export TESSERA_EXPERIMENT_TAIL_RESIDUAL=1; fi
  timeout 150 $M --batch 1,8 --decode-steps 64 2>/dev/null | grep -E '^[0-9]+ +[0-9]+ ' | awk -v c="$mode" '{printf "%s b%s %s; ", c, $1, $6}'
done
echo
python3 -c "
import json; d=json.load(open('/tmp/tc4/autotune.json')); d=d.get('entries',d)
for k,v in d.items():
  if '|matmul|' in k and 'm1_' in k: print(k.split('|',1)[1], v.get('choice'))"
date +%T
