#!/bin/bash
# session 29 run 28: eight slices in two consumer warpgroups (128-key tiles), q loaded as 32-bit words --
# tests, decode kernels in the b1 step per configuration (ncu, warm), the b1 step per forced configuration,
# the tuner's choice, engine alternated against HEAD before the sliced kernel (base).
export PATH=$PATH:/usr/local/cuda/bin
mkdir -p /tmp/b $OUT/r28
for f in base_tessera tessera tessera_gpu_tests; do xz -dc .device/bin/$f.xz > /tmp/b/$f; chmod +x /tmp/b/$f; done
XDG_CACHE_HOME=/tmp/cache_t timeout 240 /tmp/b/tessera_gpu_tests --gtest_brief=1 --gtest_filter='*Sliced*:Attention*' > $OUT/r28/gpu_tests.log 2>&1; echo "gpu tests rc $?"
tail -3 $OUT/r28/gpu_tests.log; grep -B2 -A10 "Failure" $OUT/r28/gpu_tests.log | head -40
args="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --prompt-len 2048 --batch 1"
for c in sliced_bn64_s3_x2 sliced8_bn128_s3 sliced8_bn128_s3_short bn64_s3_x2; do
  TESSERA_AUTOTUNE_FORCE=fmha_decode:$c XDG_CACHE_HOME=/tmp/cache_$c timeout 120 ncu --cache-control none --clock-control none --kernel-name-base demangled -k regex:Decode --launch-skip 300 --launch-count 8 --metrics gpu__time_duration.sum,smsp__inst_executed.sum /tmp/b/tessera $args --decode-steps 8 --cuda-graph > $OUT/r28/ncu_$c.log 2>&1
  echo "$c: $(grep -E 'duration' $OUT/r28/ncu_$c.log | awk '{print $3}' | tr '\n' ' ') inst $(grep -E 'inst_executed' $OUT/r28/ncu_$c.log | awk '{print $3}' | head -2 | tr '\n' ' ')"
  TESSERA_AUTOTUNE_FORCE=fmha_decode:$c XDG_CACHE_HOME=/tmp/cache_$c timeout 100 /tmp/b/tessera $args --decode-steps 64 --cuda-graph > $OUT/r28/step_$c.log 2>&1
  echo "  step: $(grep -E '^1 ' $OUT/r28/step_$c.log | awk '{print $5, $6}')"
done
run() {
  XDG_CACHE_HOME=/tmp/cache_$2 timeout 100 /tmp/b/$2 bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --prompt-len 2048 \
    --batch $3 --decode-steps 64 --cuda-graph > $OUT/r28/$1.log 2>&1
  echo "$1: $(grep -E '^(1|8|32) ' $OUT/r28/$1.log | awk '{print "b" $1, $5, $6}' | tr '\n' ' ')"
}
for i in 1 2 3; do run base_b1_$i base_tessera 1; run new_b1_$i tessera 1; done
python3 -c "
import json; d=json.load(open('/tmp/cache_tessera/tessera/autotune.json'))
for k,v in d.get('entries',{}).items():
    if 'fmha_decode' in k: print(k, v.get('choice'), {a: round(b,1) for a,b in v.get('timings',{}).items()})
"
run base_b8_32 base_tessera 8,32; run new_b8_32 tessera 8,32
