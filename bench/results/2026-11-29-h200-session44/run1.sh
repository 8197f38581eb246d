#!/usr/bin/env bash
# Session 44, run 1: Stream-K schedules for the staged and swap-AB matmuls. GPU suite, forced A/B on the
# shapes whose tiles fill the multiprocessors unevenly, and the tuned sweep from an empty cache.
set -u
cd "$(dirname "$0")"
mkdir -p bin
for f in tessera_gpu_tests libtessera.so; do xz -dc r1/$f.xz > bin/$f; chmod +x bin/$f; done
nvidia-smi -L; date +%T
echo "== GPU suite"
TESSERA_CACHE_DIR=/tmp/tc_t timeout 330 ./bin/tessera_gpu_tests --gtest_brief=1 > $OUT/run1_gpu_suite.log 2>&1; echo "rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED|Failure" $OUT/run1_gpu_suite.log | head -n 30
date +%T
cd ../bench
ab() {  # ab NAME SHAPES: the configuration forced on those shapes
  rm -rf /tmp/ab; mkdir -p /tmp/ab
  TESSERA_AUTOTUNE_FORCE=matmul:$1 timeout 60 python3 matmul_bench.py --lib ../.device/bin/libtessera.so --no-glu --shapes $2 --out /tmp/ab 2>&1 | grep -E "^[0-9]" | sed "s/^/$1  /"
}
D=16x14336x4096,16x4096x4096,16x4096x14336,16x128256x4096,64x14336x4096
P=128x14336x4096,128x4096x4096,128x4096x14336,1024x1024x1024,2048x2048x2048,256x14336x4096
echo "== forced, decode shapes"; date +%T
for round in 1 2; do for c in swapab_bw64_bk128_wave swapab_bw64_bk128 swapab_bw64_bk128_sk swapab_bw128_bk64_sk; do ab $c $D; done; done > $OUT/run1_forced_decode.log 2>&1
cat $OUT/run1_forced_decode.log
echo "== forced, M 128-2048"; date +%T
for round in 1 2; do for c in staged_pingpong_bm128_bn128 staged_bm128_bn128 staged_bm128_bn64 staged_bm128_bn128_sk staged_bm128_bn64_sk; do ab $c $P; done; done > $OUT/run1_forced_prefill.log 2>&1
cat $OUT/run1_forced_prefill.log
echo "== tuned sweep from an empty cache"; date +%T
rm -rf /tmp/tc_sweep /tmp/sweep; mkdir -p /tmp/sweep
TESSERA_CACHE_DIR=/tmp/tc_sweep timeout 200 python3 matmul_bench.py --lib ../.device/bin/libtessera.so --no-glu --out /tmp/sweep > $OUT/run1_matmul_sweep.log 2>&1; echo "rc $?"
cp /tmp/sweep/matmul_bench.md $OUT/run1_matmul_sweep.md; cp /tmp/sweep/matmul_bench.json $OUT/run1_matmul_sweep.json; cp /tmp/tc_sweep/autotune.json $OUT/run1_autotune_sweep.json
cat $OUT/run1_matmul_sweep.log
date +%T
