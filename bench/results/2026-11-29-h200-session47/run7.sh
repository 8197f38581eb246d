#!/usr/bin/env bash
# Session 47, run 7: the fused kernel now reads what its epilogue needs (position, slot, frequencies, bias) and
# computes the angles' cos/sin before its weights stream. GPU tests; the tuner's timings of the three forms;
# then the batch-1 step with the fused kernel and with the unfused form, both forced, alternated.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s47/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
rm -rf /tmp/tc_t; TESSERA_CACHE_DIR=/tmp/tc_t timeout 240 $B/tessera_gpu_tests --gtest_brief=1 \
  --gtest_filter='*Qkv*:*RopeKvCache*:*EngineGpu*' > $OUT/run7_gpu_tests.log 2>&1; echo "gpu tests rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED|Failure" $OUT/run7_gpu_tests.log | head -n 30
cd ../../..
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
step() { grep -E '^[0-9]+ +2048' $1 | awk '{printf "b%s %s ms  ", $1, $6}'; }
rm -rf /tmp/tc; mkdir -p /tmp/tc
TESSERA_CACHE_DIR=/tmp/tc timeout 200 $M --batch 1 > /tmp/r.log 2>&1; echo "tuned rc $? $(step /tmp/r.log)"
python3 -c "
import json
d = json.load(open('/tmp/tc/autotune.json'))['entries']
for k, v in d.items():
    if 'qkv_rope' in k or 'm1_n6144' in k: print(k.split('|',1)[1], v['choice'], {n: round(t, 1) for n, t in v['timings'].items() if 'rows' in n or 'unf' in n})
"
for round in 1 2 3 4 5 6; do
  for c in rows1_bi2_x2 unfused; do
    TESSERA_AUTOTUNE_FORCE=qkv_rope_kv_cache_append:$c TESSERA_CACHE_DIR=/tmp/tc timeout 100 $M --batch 1 > /tmp/r.log 2>&1
    echo "$c round $round rc $? $(step /tmp/r.log)"
  done
done
cp /tmp/tc/autotune.json $OUT/run7_autotune.json
date +%T
