#!/bin/bash
# session 29 run 24: which decode configuration the tuner kept, and the decode kernels' durations in the b1 step
# with each configuration forced (ncu).
export PATH=$PATH:/usr/local/cuda/bin
mkdir -p /tmp/b $OUT/r24
for f in tessera; do xz -dc .device/bin/$f.xz > /tmp/b/$f; chmod +x /tmp/b/$f; done
XDG_CACHE_HOME=/tmp/cache_t timeout 100 /tmp/b/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --prompt-len 2048 --batch 1 --decode-steps 16 --cuda-graph > $OUT/r24/tuned.log 2>&1
python3 -c "
import json; d=json.load(open('/tmp/cache_t/tessera/autotune.json'))
s=json.dumps(d)
import re
for k,v in (d.items() if isinstance(d,dict) else []):
    if 'decode' in json.dumps(k)+json.dumps(v): print(k, json.dumps(v)[:300])
" 2>&1 | head -20
for c in sliced_bn64_s3_x2 bn64_s3_x2 sliced_bn64_s3_x2_short sliced_bn64_s4; do
  TESSERA_AUTOTUNE_FORCE=fmha_decode:$c XDG_CACHE_HOME=/tmp/cache_$c timeout 100 /tmp/b/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --prompt-len 2048 --batch 1 --decode-steps 32 --cuda-graph > $OUT/r24/$c.log 2>&1
  echo "$c: $(grep -E '^1 ' $OUT/r24/$c.log | awk '{print $5, $6}')"
  TESSERA_AUTOTUNE_FORCE=fmha_decode:$c XDG_CACHE_HOME=/tmp/cache_$c timeout 120 ncu --kernel-name-base demangled -k regex:Decode --launch-skip 300 --launch-count 6 --metrics gpu__time_duration.sum,sm__cycles_active.max,smsp__inst_executed.sum /tmp/b/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --prompt-len 2048 --batch 1 --decode-steps 8 --cuda-graph > $OUT/r24/ncu_$c.log 2>&1
  grep -E "FmhaDecode|DecodeMerge|duration|cycles_active|inst_executed" $OUT/r24/ncu_$c.log | sed 's/tessera::tile::cuda::kernel_entry<tessera::ops::kernels:://' | cut -c1-150 | head -24
done
