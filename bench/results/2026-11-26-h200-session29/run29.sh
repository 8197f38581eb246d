#!/bin/bash
# session 29 run 29: the build to commit (one consumer warpgroup of slices; the tile library's sliced tiles for
# one or two): the whole GPU suite, then batch 1 alternated against HEAD before the sliced kernel (base).
export PATH=$PATH:/usr/local/cuda/bin
mkdir -p /tmp/b $OUT/r29
for f in base_tessera tessera tessera_gpu_tests; do xz -dc .device/bin/$f.xz > /tmp/b/$f; chmod +x /tmp/b/$f; done
XDG_CACHE_HOME=/tmp/cache_t timeout 400 stdbuf -oL /tmp/b/tessera_gpu_tests > $OUT/r29/gpu_suite.log 2>&1; echo "gpu suite rc $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" $OUT/r29/gpu_suite.log | head; grep -E "^\[       OK \] (TileStaged|Attention)" $OUT/r29/gpu_suite.log | head -40
grep -B2 -A10 "Failure" $OUT/r29/gpu_suite.log | head -40
run() {
  XDG_CACHE_HOME=/tmp/cache_$2 timeout 100 /tmp/b/$2 bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --prompt-len 2048 \
    --batch $3 --decode-steps 64 --cuda-graph > $OUT/r29/$1.log 2>&1
  echo "$1: $(grep -E '^(1|8|32) ' $OUT/r29/$1.log | awk '{print "b" $1, $5, $6}' | tr '\n' ' ')"
}
for i in 1 2; do run base_b1_$i base_tessera 1; run new_b1_$i tessera 1; done
