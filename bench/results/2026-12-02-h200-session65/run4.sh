#!/usr/bin/env bash
# Session 65, run 4: run 3's engine half again with the command-line binary rebuilt (run 3's tessera was a stale
# build of 2026-12-01 without the stream-K candidate: its cache A held no stream-K choice, so A = B). Build s65b:
# the decode step at Llama-3.1-8B shapes, batch 8 / 16 / 32, tuned (cache A) and with every stream-K choice of
# cache A replaced by the best other candidate of its own timings (cache B: what main's build would run), alternated.
# First the GPU tests of the matmul family on s65b (run 2a ran them on s65a).
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s65b/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run4; mkdir -p $R
xz -dc .device/s65b/tessera_gpu_tests.xz > $B/tessera_gpu_tests; chmod +x $B/tessera_gpu_tests
TESSERA_CACHE_DIR=/tmp/tc_tests timeout 240 $B/tessera_gpu_tests --gtest_brief=1 --gtest_filter='MatmulGpu.*:AutotuneGpu.*:TileStagedGpu.*' > $R/gpu_tests.txt 2>&1
echo "gpu tests rc $?"; tail -n 4 $R/gpu_tests.txt; grep -E "FAILED|Failure" $R/gpu_tests.txt | head -20
A="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 8,16,32 --decode-steps 32"
mkdir -p /tmp/tcA /tmp/tcB; rm -f /tmp/tcA/* /tmp/tcB/*
TESSERA_CACHE_DIR=/tmp/tcA timeout 200 $B/tessera $A > $R/tune.log 2>&1; echo "tuning run rc $?"; grep -E '^(8|16|32) ' $R/tune.log
python3 - <<'PY'
import json
d = json.load(open('/tmp/tcA/autotune.json'))
for k, v in d['entries'].items():
    if 'streamk' in v['choice']:
        t = dict(v.get('timings', {})); t.update(v.get('sustained', {}))
        others = {n: u for n, u in t.items() if 'streamk' not in n}
        best = min(others, key=others.get)
        print(f"{k}: {v['choice']} -> {best}")
        v['choice'] = best; v['us'] = others[best]
json.dump(d, open('/tmp/tcB/autotune.json', 'w'))
PY
for c in A B A B A B; do
  TESSERA_CACHE_DIR=/tmp/tc$c timeout 150 $B/tessera $A > $R/step_$c.log 2>&1; echo "cache $c rc $?: $(grep -E '^(8|16|32) ' $R/step_$c.log | tr '\n' '|')"
done | tee $R/steps.txt
cp /tmp/tcA/autotune.json $R/autotune_A.json; cp /tmp/tcB/autotune.json $R/autotune_B.json
date +%T
