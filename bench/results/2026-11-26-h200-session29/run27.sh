#!/bin/bash
# session 29 run 27: the committed build (82e9b67): the whole GPU suite, and batch 1 alternated against HEAD
# before it (base) once more, tuned and with the heuristic defaults (TESSERA_AUTOTUNE=0).
export PATH=$PATH:/usr/local/cuda/bin
mkdir -p /tmp/b $OUT/r27
for f in base_tessera tessera tessera_gpu_tests; do xz -dc .device/bin/$f.xz > /tmp/b/$f; chmod +x /tmp/b/$f; done
XDG_CACHE_HOME=/tmp/cache_t timeout 280 /tmp/b/tessera_gpu_tests --gtest_brief=1 > $OUT/r27/gpu_suite.log 2>&1; echo "gpu suite rc $?"
tail -3 $OUT/r27/gpu_suite.log; grep -B2 -A8 "Failure" $OUT/r27/gpu_suite.log | head -30
run() {
  XDG_CACHE_HOME=/tmp/cache_$2 timeout 100 /tmp/b/$2 bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --prompt-len 2048 \
    --batch $3 --decode-steps 64 --cuda-graph > $OUT/r27/$1.log 2>&1
  echo "$1: $(grep -E '^(1|8|32) ' $OUT/r27/$1.log | awk '{print "b" $1, $5, $6}' | tr '\n' ' ')"
}
for i in 1 2; do run base_b1_$i base_tessera 1; run new_b1_$i tessera 1; done
export TESSERA_AUTOTUNE=0
for i in 1 2; do run base_heur_b1_$i base_tessera 1; run new_heur_b1_$i tessera 1; done
