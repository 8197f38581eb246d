#!/usr/bin/env bash
# Session 47, run 8: the fused kernel runs by default now (not tuned), its epilogue's loads issued before the
# weights stream and its math after. The batch-1 step, fused (default) and unfused (forced) alternated; then
# Nsight Compute on the fused kernel and on the plain few-rows matmul of the unfused form (layer 20's q/k/v).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s47/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
rm -rf /tmp/tc_t; TESSERA_CACHE_DIR=/tmp/tc_t timeout 240 $B/tessera_gpu_tests --gtest_brief=1 \
  --gtest_filter='*Qkv*:*RopeKvCache*:*EngineGpu*' > $OUT/run8_gpu_tests.log 2>&1; echo "gpu tests rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED|Failure" $OUT/run8_gpu_tests.log | head -n 30
cd ../../..
export TESSERA_CACHE_DIR=/tmp/tc
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --batch 1"
step() { grep -E '^[0-9]+ +2048' $1 | awk '{printf "b%s %s ms  ", $1, $6}'; }
rm -rf /tmp/tc; mkdir -p /tmp/tc
timeout 200 $M --cuda-graph > /tmp/r.log 2>&1; echo "tuned rc $? $(step /tmp/r.log)"
for round in 1 2 3 4 5 6; do
  timeout 100 $M --cuda-graph > /tmp/r.log 2>&1; echo "fused   round $round rc $? $(step /tmp/r.log)"
  TESSERA_AUTOTUNE_FORCE=qkv_rope_kv_cache_append:unfused timeout 100 $M --cuda-graph > /tmp/r.log 2>&1
  echo "unfused round $round rc $? $(step /tmp/r.log)"
done
date +%T
N="ncu --clock-control none --set full --kernel-name-base demangled --launch-skip 20 --launch-count 1"
timeout 150 $N --kernel-name regex:QkvRopeKvCacheAppend $M --decode-steps 2 --prompt-len 2048 > $OUT/run8_ncu_fused.txt 2>&1; echo "ncu fused rc $?"
TESSERA_AUTOTUNE_FORCE=qkv_rope_kv_cache_append:unfused timeout 150 $N --kernel-name 'regex:MatmulFewRows<tessera::bf16, tessera::bf16' \
  $M --decode-steps 2 --prompt-len 2048 > $OUT/run8_ncu_plain.txt 2>&1; echo "ncu plain rc $?"
for f in fused plain; do
  echo "== $f"; grep -E "Duration|Grid Size|Registers Per|Executed Instructions  |Warp Cycles Per Issued|DRAM Throughput|Achieved Occupancy" $OUT/run8_ncu_$f.txt | head -8
done
date +%T
