#!/bin/bash
# session 29 run 23: sliced decode attention (16 query rows a block, warp-level mma) -- tile tests, attention
# tests, engine b1 alternated against HEAD (base), b8/32, and ncu of the decode kernels in the b1 step.
export PATH=$PATH:/usr/local/cuda/bin
mkdir -p /tmp/b $OUT/r23
for f in base_tessera tessera tessera_gpu_tests; do xz -dc .device/bin/$f.xz > /tmp/b/$f; chmod +x /tmp/b/$f; done
XDG_CACHE_HOME=/tmp/cache_t timeout 250 /tmp/b/tessera_gpu_tests --gtest_brief=1 --gtest_filter='*Sliced*:Attention*:TileStaged*' > $OUT/r23/gpu_tests.log 2>&1; echo "gpu tests rc $?"
tail -4 $OUT/r23/gpu_tests.log; grep -B2 -A8 "FAILED\|Failure" $OUT/r23/gpu_tests.log | head -60
run() {
  XDG_CACHE_HOME=/tmp/cache_$2 timeout 100 /tmp/b/$2 bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --prompt-len 2048 \
    --batch $3 --decode-steps 64 --cuda-graph > $OUT/r23/$1.log 2>&1
  echo "$1: $(grep -E '^(1|8|32) ' $OUT/r23/$1.log | awk '{print "b" $1, $5, $6}' | tr '\n' ' ')"
}
for i in 1 2 3; do run base_b1_$i base_tessera 1; run new_b1_$i tessera 1; done
run base_b8_32 base_tessera 8,32; run new_b8_32 tessera 8,32
XDG_CACHE_HOME=/tmp/cache_tessera timeout 120 ncu -k regex:Decode --launch-skip 200 --launch-count 12 /tmp/b/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --prompt-len 2048 --batch 1 --decode-steps 8 --cuda-graph > $OUT/r23/ncu_new.log 2>&1
grep -E "FmhaDecode|DecodeMerge|Duration" $OUT/r23/ncu_new.log | head -30
ls /tmp/cache_tessera/tessera/ 2>/dev/null; cat /tmp/cache_tessera/tessera/*.json 2>/dev/null | grep -o '"fmha_decode[^}]*}' | head
