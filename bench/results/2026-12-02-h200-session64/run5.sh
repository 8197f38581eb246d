#!/usr/bin/env bash
# Session 64, run 5: main (s63d) against s64c (what lands), alternated library by library in one run: the matmul
# sweep of issue 3 against cuBLAS (one tuning cache shared by all runs), then the shapes below 2048 x 14336 that
# run 1 found steady, three more times each; prefill attention forced (the kernel's code is main's: a check);
# then prefill with s64c's tuner choosing, causal and not, cuDNN SDPA in the same process.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s63d/libtessera.so.xz > $B/libmain.so
xz -dc ../../../.device/s64c/libtessera.so.xz > $B/libnew.so
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run5; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_r5; rm -rf /tmp/tc_r5
for lib in new main new main; do
  timeout 140 python3 bench/matmul_bench.py --lib $B/lib$lib.so --no-glu --rounds 2 --out /tmp --label "$lib " 2>&1 | grep -E "ratio|rror"
done | tee $R/matmul.txt
S=1024x1024x1024,2048x2048x2048,16x4096x4096,16x14336x4096,128x4096x4096,128x14336x4096,128x4096x14336,2048x4096x4096
for lib in main new main new main new; do
  timeout 60 python3 bench/matmul_bench.py --lib $B/lib$lib.so --no-glu --shapes $S --rounds 3 --out /tmp --label "$lib " 2>&1 | grep -E "ratio|rror"
done | tee $R/matmul_steady.txt
date +%T
run() { local lib=$1 cfg=$2; shift 2; TESSERA_AUTOTUNE_FORCE=fmha:$cfg timeout 60 python3 bench/profile_fmha.py --lib $B/lib$lib.so "$@" 2>&1 | tail -n 1 | sed "s/^/$lib $cfg: /"; }
for lib in main new main new; do
  for c in "" --causal; do run $lib bn128_s5_overlap_persistent 16 16 1024 128 $c --cudnn; done
done | tee $R/forced.txt
date +%T
export TESSERA_CACHE_DIR=/tmp/tc_r5t; rm -rf /tmp/tc_r5t
for c in --causal ""; do
  for s in "16 16 1024 128" "8 16 2048 64" "4 16 4096 128" "1 32 2048 128" "1 16 16384 128" "2 16 8192 64" "4 16 4096 256"; do
    timeout 60 python3 bench/profile_fmha.py --lib $B/libnew.so $s $c --cudnn 2>&1 | tail -n 1
  done
done | tee $R/tuned.txt
cp /tmp/tc_r5t/autotune.json $R/ 2>/dev/null
date +%T
