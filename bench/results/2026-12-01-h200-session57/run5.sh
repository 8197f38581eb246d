#!/usr/bin/env bash
# Session 57, run 5: the build to commit (s57e: the few-rows matmul asks for its residual before its k loop; the
# deferred norm reverted). The GPU matmul and engine tests; then batch 1, 8, 32 of this build. (Main's binary did not
# fit beside it in the 64 MiB the run tool carries: the A/B against main's code is run 4's, in one binary.)
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s57e/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc_t
TESSERA_CACHE_DIR=/tmp/tc_t timeout 300 $B/tessera_gpu_tests --gtest_brief=1 --gtest_filter='MatmulGpu.*:Engine*:*Engine*' \
  > $OUT/run5_gpu_tests.log 2>&1
echo "gpu tests rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure" $OUT/run5_gpu_tests.log | head -n 20
date +%T
A="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
rm -rf /tmp/tc_new
TESSERA_CACHE_DIR=/tmp/tc_new timeout 150 $B/tessera $A --batch 1 --decode-steps 16 > /dev/null 2>&1
for r in 1 2 3; do
  TESSERA_CACHE_DIR=/tmp/tc_new timeout 100 $B/tessera $A --batch 1 --decode-steps 64 2>/dev/null | grep -E '^[0-9]+ +[0-9]+ ' | awk '{printf "b1 %s ms; ", $6}'
done
echo
TESSERA_CACHE_DIR=/tmp/tc_new timeout 250 $B/tessera $A --batch 1,8,32 > $OUT/run5_engine.log 2>&1; echo "engine rc $?"
grep -E '^[0-9]+ +[0-9]+ |batch|tokens' $OUT/run5_engine.log | tail -n 8
date +%T
