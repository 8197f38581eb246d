#!/usr/bin/env bash
# Session 58, run 9: the build to commit (s58d: norms, rope blocks, embedding's queued check and ids_in_range).
# The whole GPU suite; every memory-bound op of issue 3 in `tessera bench` (bf16 two rounds, f16 one); batch-1 engine.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s58d/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run9; mkdir -p $R
rm -rf /tmp/tc_t
TESSERA_CACHE_DIR=/tmp/tc_t timeout 420 $B/tessera_gpu_tests --gtest_brief=1 > $R/gpu_suite.log 2>&1
echo "gpu suite rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure" $R/gpu_suite.log | head -n 20
date +%T
for dt in bf16 bf16 f16; do
  TESSERA_CACHE_DIR=/tmp/tc_t timeout 200 $B/tessera bench rms_norm rms_norm_residual layer_norm softmax gelu silu_and_mul rope embedding \
    --shapes 16384x8192,4096x4096 --dtype $dt --out /tmp/rows > /dev/null 2>&1
  echo "$dt rc $?"; n=$(ls $R | grep -c rows_); cp /tmp/rows/bench.md $R/rows_${dt}_$n.md
  grep -E "^\| [a-z]|copy" $R/rows_${dt}_$n.md | grep -v "^| op" | cut -d'|' -f2-4,8
done
date +%T
A="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
TESSERA_CACHE_DIR=/tmp/tc_t timeout 200 $B/tessera $A --batch 1 --decode-steps 64 > $R/engine_b1.log 2>&1; echo "engine rc $?"
grep -E '^[0-9]+ +[0-9]+ |prefill|tokens' $R/engine_b1.log | tail -n 6
date +%T
