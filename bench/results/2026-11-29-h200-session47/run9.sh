#!/usr/bin/env bash
# Session 47, run 9: the build to commit (qkv_rope_kv_cache_append, fused by default for one token). The full GPU
# suite; `tessera ops check` of the new op; its bench rows; the engine at batch 1, 8, 32 tuned from an empty
# cache, then batch 1 fused (default) and unfused (forced) alternated; logits parity with transformers.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s47/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
rm -rf /tmp/tc_t; TESSERA_CACHE_DIR=/tmp/tc_t timeout 330 $B/tessera_gpu_tests --gtest_brief=1 > $OUT/run9_gpu_suite.log 2>&1; echo "gpu suite rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED|Failure" $OUT/run9_gpu_suite.log | head -n 30
date +%T
$B/tessera ops check --op qkv_rope_kv_cache_append --backend tile-cuda 2>&1 | tail -n 5
cd ../../..
rm -rf /tmp/tcb; TESSERA_CACHE_DIR=/tmp/tcb timeout 120 $B/tessera bench qkv_rope_append --out /tmp/bo > $OUT/run9_bench.log 2>&1; echo "bench rc $?"
cp /tmp/bo/bench.md $OUT/run9_bench.md; grep -E "^\| qkv" /tmp/bo/bench.md
date +%T
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
step() { grep -E '^[0-9]+ +2048' $1 | awk '{printf "b%s %s ms %s tok/s  ", $1, $6, $5}'; }
rm -rf /tmp/tc; mkdir -p /tmp/tc
TESSERA_CACHE_DIR=/tmp/tc timeout 200 $M --batch 1,8,32 > $OUT/run9_engine.log 2>&1; echo "engine rc $? $(step $OUT/run9_engine.log)"
for round in 1 2 3 4; do
  TESSERA_CACHE_DIR=/tmp/tc timeout 100 $M --batch 1 > /tmp/r.log 2>&1; echo "fused   round $round rc $? $(step /tmp/r.log)"
  TESSERA_AUTOTUNE_FORCE=qkv_rope_kv_cache_append:unfused TESSERA_CACHE_DIR=/tmp/tc timeout 100 $M --batch 1 > /tmp/r.log 2>&1
  echo "unfused round $round rc $? $(step /tmp/r.log)"
done
cp /tmp/tc/autotune.json $OUT/run9_autotune.json
date +%T
PYTHONUNBUFFERED=1 timeout 280 python3 scripts/model/parity.py --tessera $B/tessera --devices cpu,cuda \
  --dtypes f32,bf16 --embedded models/tessera-tiny --timeout 60 --out /tmp/parity > $OUT/run9_parity.log 2>&1; echo "parity rc $?"
cp /tmp/parity/parity.md $OUT/run9_parity.md 2>/dev/null; tail -n 40 $OUT/run9_parity.log
date +%T
