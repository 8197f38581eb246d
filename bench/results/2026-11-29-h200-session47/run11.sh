#!/usr/bin/env bash
# Session 47, run 11: the committed build. The fused kernel by default only where K is at most one group of its
# two 1024-column tiles or a whole number of them (Qwen2-7B's K = 3584 runs unfused), two more test shapes.
# GPU tests of the op and the engine; bench rows; batch-1 step fused (default) and unfused (forced) alternated.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s47/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
rm -rf /tmp/tc_t; TESSERA_CACHE_DIR=/tmp/tc_t timeout 240 $B/tessera_gpu_tests --gtest_brief=1 \
  --gtest_filter='*Qkv*:*RopeKvCache*:*EngineGpu*' > $OUT/run11_gpu_tests.log 2>&1; echo "gpu tests rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED|Failure" $OUT/run11_gpu_tests.log | head -n 30
cd ../../..
rm -rf /tmp/tcb; TESSERA_CACHE_DIR=/tmp/tcb timeout 120 $B/tessera bench qkv_rope_append --out /tmp/bo > $OUT/run11_bench.log 2>&1; echo "bench rc $?"
cp /tmp/bo/bench.md $OUT/run11_bench.md; grep -E "^\| qkv" /tmp/bo/bench.md
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
step() { grep -E '^[0-9]+ +2048' $1 | awk '{printf "b%s %s ms %s tok/s  ", $1, $6, $5}'; }
rm -rf /tmp/tc; mkdir -p /tmp/tc
TESSERA_CACHE_DIR=/tmp/tc timeout 200 $M --batch 1 > /tmp/r.log 2>&1; echo "tuned rc $? $(step /tmp/r.log)"
for round in 1 2 3 4; do
  TESSERA_CACHE_DIR=/tmp/tc timeout 100 $M --batch 1 > /tmp/r.log 2>&1; echo "fused   round $round rc $? $(step /tmp/r.log)"
  TESSERA_AUTOTUNE_FORCE=qkv_rope_kv_cache_append:unfused TESSERA_CACHE_DIR=/tmp/tc timeout 100 $M --batch 1 > /tmp/r.log 2>&1
  echo "unfused round $round rc $? $(step /tmp/r.log)"
done
date +%T
