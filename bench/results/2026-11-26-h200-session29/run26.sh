#!/bin/bash
# session 29 run 26: sliced decode with pair stores and shared-memory slice sums -- tests, decode kernels in
# the b1 step per configuration (ncu, warm caches), engine b1 alternated against HEAD (base), b8/32.
export PATH=$PATH:/usr/local/cuda/bin
mkdir -p /tmp/b $OUT/r26
for f in base_tessera tessera tessera_gpu_tests; do xz -dc .device/bin/$f.xz > /tmp/b/$f; chmod +x /tmp/b/$f; done
XDG_CACHE_HOME=/tmp/cache_t timeout 200 /tmp/b/tessera_gpu_tests --gtest_brief=1 --gtest_filter='*Sliced*:Attention*' > $OUT/r26/gpu_tests.log 2>&1; echo "gpu tests rc $?"
tail -3 $OUT/r26/gpu_tests.log; grep -B2 -A8 "Failure" $OUT/r26/gpu_tests.log | head -40
args="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --prompt-len 2048 --batch 1 --decode-steps 8 --cuda-graph"
for c in sliced_bn64_s3_x2 bn64_s3_x2 sliced_bn64_s3_x2_short; do
  TESSERA_AUTOTUNE_FORCE=fmha_decode:$c XDG_CACHE_HOME=/tmp/cache_$c timeout 120 ncu --cache-control none --clock-control none --kernel-name-base demangled -k regex:Decode --launch-skip 300 --launch-count 8 --metrics gpu__time_duration.sum,smsp__inst_executed.sum /tmp/b/tessera $args > $OUT/r26/ncu_$c.log 2>&1
  echo "$c: $(grep -E 'duration' $OUT/r26/ncu_$c.log | awk '{print $3}' | tr '\n' ' ') inst $(grep -E 'inst_executed' $OUT/r26/ncu_$c.log | awk '{print $3}' | head -2 | tr '\n' ' ')"
done
run() {
  XDG_CACHE_HOME=/tmp/cache_$2 timeout 100 /tmp/b/$2 bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --prompt-len 2048 \
    --batch $3 --decode-steps 64 --cuda-graph > $OUT/r26/$1.log 2>&1
  echo "$1: $(grep -E '^(1|8|32) ' $OUT/r26/$1.log | awk '{print "b" $1, $5, $6}' | tr '\n' ' ')"
}
for i in 1 2 3; do run base_b1_$i base_tessera 1; run new_b1_$i tessera 1; done
run base_b8_32 base_tessera 8,32; run new_b8_32 tessera 8,32
