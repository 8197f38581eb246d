#!/usr/bin/env bash
# Session 48, run 2: the cluster tile test with each cluster in its own plane (run 1's test let a cluster's
# padding rows run into the next cluster's rows). Why the cluster decode is faster alone (bench, run 1) and
# slower in the decode step and in the tuner: with and without dependent launch (TESSERA_PDL=0), the bench row
# and the batch-1 step, the split kernel with its merge against clusters of 16, alternated.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s48/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
rm -rf /tmp/tc_t; TESSERA_CACHE_DIR=/tmp/tc_t timeout 100 $B/tessera_gpu_tests --gtest_brief=1 \
  --gtest_filter='*ClusterMerge*' > $OUT/run2_gpu_tests.log 2>&1; echo "gpu tests rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED|Failure" $OUT/run2_gpu_tests.log | head -n 10
cd ../../..
for pdl in 1 0; do
  for c in sliced_bn64_s3_x2_short sliced_bn64_s3_x2_c16 sliced_bn64_s3_x2_c8; do
    rm -rf /tmp/tcb; TESSERA_PDL=$pdl TESSERA_AUTOTUNE_FORCE=fmha_decode:$c TESSERA_CACHE_DIR=/tmp/tcb timeout 60 $B/tessera bench fmha_decode \
      --shapes 1x2080x32x8x128,1x4096x32x8x128 --out /tmp/bo > /tmp/b.log 2>&1; echo "pdl $pdl bench $c rc $?"
    grep -E "^\| fmha_decode" /tmp/bo/bench.md | cut -d'|' -f3,4 | tr '\n' ' '; echo
  done
done
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
step() { grep -E '^[0-9]+ +2048' $1 | awk '{printf "b%s %s ms %s tok/s  ", $1, $6, $5}'; }
rm -rf /tmp/tc; mkdir -p /tmp/tc
TESSERA_CACHE_DIR=/tmp/tc timeout 150 $M --batch 1 > /tmp/r.log 2>&1; echo "tuned rc $? $(step /tmp/r.log)"
for round in 1 2; do
  for pdl in 1 0; do
    for c in sliced_bn64_s3_x2_short sliced_bn64_s3_x2_c16; do
      TESSERA_PDL=$pdl TESSERA_AUTOTUNE_FORCE=fmha_decode:$c TESSERA_CACHE_DIR=/tmp/tc timeout 100 $M --batch 1 > /tmp/r.log 2>&1
      echo "round $round pdl $pdl $c rc $? $(step /tmp/r.log)"
    done
  done
done
date +%T
