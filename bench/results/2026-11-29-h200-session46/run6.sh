#!/usr/bin/env bash
# Session 46, run 6: the committed build (the tuner's flush by reading): GPU suite, then the engine tuned from
# an empty cache at batch 1, 8, 32.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s46/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
rm -rf /tmp/tc_t; TESSERA_CACHE_DIR=/tmp/tc_t timeout 330 $B/tessera_gpu_tests --gtest_brief=1 > $OUT/run6_gpu_suite.log 2>&1; echo "gpu suite rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED|Failure" $OUT/run6_gpu_suite.log | head -n 30
date +%T
cd ../../..
rm -rf /tmp/tc; TESSERA_CACHE_DIR=/tmp/tc timeout 200 $B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1,8,32 > $OUT/run6_engine.log 2>&1; echo "engine rc $?"
grep -E '^[0-9]+ +2048' $OUT/run6_engine.log
cp /tmp/tc/autotune.json $OUT/run6_autotune_model.json
date +%T
