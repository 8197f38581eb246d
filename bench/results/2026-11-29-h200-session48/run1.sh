#!/usr/bin/env bash
# Session 48, run 1: split decode attention whose splits are the blocks of a launch cluster and merge through
# distributed shared memory (no partials in global memory, no merge kernel). GPU tests of the new tile op and
# of every decode configuration; decode bench rows per configuration (forced) and tuned; the batch-1 decode step with each configuration forced, alternated.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s48/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
rm -rf /tmp/tc_t; TESSERA_CACHE_DIR=/tmp/tc_t timeout 200 $B/tessera_gpu_tests --gtest_brief=1 \
  --gtest_filter='*ClusterMerge*:*SlicedTiles*:*Decode*' > $OUT/run1_gpu_tests.log 2>&1; echo "gpu tests rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED|Failure" $OUT/run1_gpu_tests.log | head -n 30
date +%T
cd ../../..
S128=1x2080x32x8x128,1x4096x32x8x128,1x32768x32x8x128,8x8192x32x8x128
for c in sliced_bn64_s3_x2_short sliced_bn64_s3_x2_c8 sliced_bn64_s3_x2_c16 tuned; do
  force="fmha_decode:$c"; [ $c = tuned ] && force=""
  rm -rf /tmp/tcb; TESSERA_AUTOTUNE_FORCE=$force TESSERA_CACHE_DIR=/tmp/tcb timeout 100 $B/tessera bench fmha_decode \
    --shapes $S128 --out /tmp/bo > /tmp/b.log 2>&1; echo "bench $c rc $?"
  grep -E "^\| fmha_decode" /tmp/bo/bench.md | sed "s/^/$c /"; cat /tmp/b.log >> $OUT/run1_bench.log
done
for c in sliced_bn128_s4_short sliced_bn128_s4_c16; do
  rm -rf /tmp/tcb; TESSERA_AUTOTUNE_FORCE=fmha_decode:$c TESSERA_CACHE_DIR=/tmp/tcb timeout 60 $B/tessera bench fmha_decode \
    --shapes 1x2080x32x8x64,1x32768x32x8x64 --out /tmp/bo > /tmp/b.log 2>&1; echo "bench $c rc $?"
  grep -E "^\| fmha_decode" /tmp/bo/bench.md | sed "s/^/$c /"; cat /tmp/b.log >> $OUT/run1_bench.log
done
date +%T
date +%T
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
step() { grep -E '^[0-9]+ +2048' $1 | awk '{printf "b%s %s ms %s tok/s  ", $1, $6, $5}'; }
rm -rf /tmp/tc; mkdir -p /tmp/tc
TESSERA_CACHE_DIR=/tmp/tc timeout 150 $M --batch 1 > /tmp/r.log 2>&1; echo "tuned rc $? $(step /tmp/r.log)"
cp /tmp/r.log $OUT/run1_tuning.log; grep -o '"fmha_decode[^}]*' /tmp/tc/autotune.json | head -5
for round in 1 2; do
  for c in sliced_bn64_s3_x2_short sliced_bn64_s3_x2_c16 sliced_bn64_s3_x2_c8; do
    TESSERA_AUTOTUNE_FORCE=fmha_decode:$c TESSERA_CACHE_DIR=/tmp/tc timeout 100 $M --batch 1 > /tmp/r.log 2>&1
    echo "round $round $c rc $? $(step /tmp/r.log)"
  done
done
cp /tmp/tc/autotune.json $OUT/run1_autotune.json
date +%T
