#!/usr/bin/env bash
# Session 54, run 8: the build that offers no unfused SwiGLU at one row on the GPU (s54c) against 815d3bc
# (s54b), fresh tuner caches every round as in run 7; the GPU tests of matmul_silu_and_mul and the engine.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
# Two calls (the carry limit): `run8.sh tests` with s54c's two binaries, then `run8.sh step` with both CLIs.
xz -dc ../../../.device/s54c/tessera.xz > $B/tessera
[ "${1:-}" = tests ] && xz -dc ../../../.device/s54c/gpu_tests.xz > $B/gpu_tests
[ "${1:-}" = step ] && xz -dc ../../../.device/s54b/tessera.xz > $B/tessera_main
chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
if [ "${1:-}" = tests ]; then
  rm -rf /tmp/tg; mkdir -p /tmp/tg
  TESSERA_CACHE_DIR=/tmp/tg timeout 400 $B/gpu_tests --gtest_filter='*SiluAndMul*:*silu_and_mul*:EngineGpu.*:MatmulGpu.*' > $OUT/run8_gpu_tests.log 2>&1
  echo "gpu tests rc $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" $OUT/run8_gpu_tests.log | head
  exit 0
fi
run_as() {
  local m=$1; shift
  local bin=$B/tessera; [ $m = main ] && bin=$B/tessera_main
  TESSERA_CACHE_DIR=/tmp/tc_$m timeout 200 $bin "$@"
}
choice() {
  python3 -c "
import json
e=json.load(open('/tmp/tc_$1/autotune.json')); e=e.get('entries',e)
print(' '.join(v['choice'] for k,v in e.items() if 'silu' in k and 'm1_' in k))"
}
for round in 1 2 3; do
  rm -rf /tmp/tc_*; mkdir -p /tmp/tc_main /tmp/tc_new
  for m in main new; do run_as $m bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1 --decode-steps 8 > /dev/null 2>&1; done
  for rep in 1 2; do
    for m in main new; do
      run_as $m bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1 > /tmp/bm.log 2>&1
      echo "round $round $m rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms; ", $1, $6}') swiglu: $(choice $m)"
      cat /tmp/bm.log >> $OUT/run8_bench_model_$m.log
    done
  done
done
run_as new bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 8,32 > /tmp/bm.log 2>&1
echo "new b8,32 rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms, %s tok/s; ", $1, $6, $5}')"
cat /tmp/bm.log >> $OUT/run8_bench_model_new.log
date +%T
