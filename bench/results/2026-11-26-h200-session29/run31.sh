#!/bin/bash
# session 29 run 31: after the review (one online-softmax step shared, the swizzle offset from panel_cols):
# the GPU suite, batch 1 against session 28's build.
export PATH=$PATH:/usr/local/cuda/bin
mkdir -p /tmp/b $OUT/r31
for f in base_tessera tessera tessera_gpu_tests; do xz -dc .device/bin/$f.xz > /tmp/b/$f; chmod +x /tmp/b/$f; done
XDG_CACHE_HOME=/tmp/cache_t timeout 300 stdbuf -oL /tmp/b/tessera_gpu_tests --gtest_brief=1 > $OUT/r31/gpu_suite.log 2>&1; echo "gpu suite rc $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) " $OUT/r31/gpu_suite.log; grep -B2 -A8 "Failure" $OUT/r31/gpu_suite.log | head -30
for i in 1 2; do for t in base_tessera tessera; do
  XDG_CACHE_HOME=/tmp/cache_$t timeout 100 /tmp/b/$t bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --prompt-len 2048 --batch 1 --decode-steps 64 --cuda-graph > $OUT/r31/${t}_$i.log 2>&1
  echo "$t $i: $(grep -E '^1 ' $OUT/r31/${t}_$i.log | awk '{print $5, $6}')"
done; done
