#!/usr/bin/env bash
# Session 65, run 3: build s65b (stream-K segments visited last one first). The stream-K candidate forced
# against the one-wave split (matmul) and against main's SwiGLU choice (swapab_bw64_bk128); then the engine's
# decode step at Llama-3.1-8B shapes, batch 8 / 16 / 32: tuned (cache A), and with every stream-K choice of
# cache A replaced by the best other candidate of its own timings (cache B: what main's build would run),
# alternated.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s65b/libtessera.so.xz > $B/libnew.so
xz -dc ../../../.device/s65b/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run3; mkdir -p $R
S2=2x14336x4096,8x14336x4096,32x14336x4096,64x14336x4096,16x28672x4096,16x4096x14336,16x4096x4096,16x128256x4096
for cfg in swapab_bw64_bk128_streamk swapab_bw64_bk128_wave swapab_bw64_bk128_streamk swapab_bw64_bk128_wave; do
  TESSERA_AUTOTUNE_FORCE=matmul:$cfg TESSERA_CACHE_DIR=/tmp/tc_f timeout 60 python3 bench/matmul_bench.py --lib $B/libnew.so --no-glu --shapes $S2 --rounds 2 --out /tmp --label "$cfg " 2>&1 | grep -E "ratio|rror"
done | tee $R/forced.txt
date +%T
for cfg in swapab_bw64_bk128_streamk swapab_bw64_bk128 swapab_bw64_bk128_streamk swapab_bw64_bk128; do
  TESSERA_AUTOTUNE_FORCE=matmul_silu_and_mul:$cfg TESSERA_CACHE_DIR=/tmp/tc_f timeout 100 python3 bench/matmul_bench.py --lib $B/libnew.so --glu-only --out /tmp 2>&1 | grep -E "silu_and_mul (16|32|64)x" | sed "s/^/$cfg /"
done | tee $R/glu_forced.txt
date +%T
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
