#!/usr/bin/env bash
# Session 47, run 5: run 4 again after the fused kernel's 64-bit divisions became 32-bit ones (its 52 bytes of spills a thread gone:
# 116 registers, none spilled). GPU tests, the bench rows, then the batch-1 step, fused (default) and unfused
# (forced) alternated in one binary.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s47/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
rm -rf /tmp/tc_t; TESSERA_CACHE_DIR=/tmp/tc_t timeout 240 $B/tessera_gpu_tests --gtest_brief=1 \
  --gtest_filter='*Qkv*:*RopeKvCache*:*EngineGpu*:*FewRows*:*SiluAndMul*' > $OUT/run5_gpu_tests.log 2>&1; echo "gpu tests rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED|Failure" $OUT/run5_gpu_tests.log | head -n 30
date +%T
cd ../../..
rm -rf /tmp/tcb; TESSERA_CACHE_DIR=/tmp/tcb timeout 120 $B/tessera bench qkv_rope_append --out /tmp/bo > $OUT/run5_bench.log 2>&1; echo "bench rc $?"
grep -E "qkv|K=" $OUT/run5_bench.log | head
cp /tmp/bo/bench.md $OUT/run5_bench.md 2>/dev/null; cp /tmp/tcb/autotune.json $OUT/run5_bench_autotune.json
date +%T
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
step() { grep -E '^[0-9]+ +2048' $1 | awk '{printf "b%s %s ms  ", $1, $6}'; }
rm -rf /tmp/tc; mkdir -p /tmp/tc
TESSERA_CACHE_DIR=/tmp/tc timeout 200 $M --batch 1,8 > /tmp/r.log 2>&1; echo "tuned rc $? $(step /tmp/r.log)"
cp /tmp/r.log $OUT/run5_tuning.log
for round in 1 2 3 4 5; do
  TESSERA_CACHE_DIR=/tmp/tc timeout 100 $M --batch 1 > /tmp/r.log 2>&1; echo "fused   round $round rc $? $(step /tmp/r.log)"
  TESSERA_AUTOTUNE_FORCE=qkv_rope_kv_cache_append:unfused TESSERA_CACHE_DIR=/tmp/tc timeout 100 $M --batch 1 > /tmp/r.log 2>&1
  echo "unfused round $round rc $? $(step /tmp/r.log)"
done
python3 -c "
import json
d = json.load(open('/tmp/tc/autotune.json'))['entries']
for k, v in d.items():
    if 'qkv_rope' in k: print(k, v['choice'], {n: round(t, 1) for n, t in v['timings'].items()})
"
cp /tmp/tc/autotune.json $OUT/run5_autotune.json
date +%T
