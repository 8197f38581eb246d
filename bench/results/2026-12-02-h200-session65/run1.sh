#!/usr/bin/env bash
# Session 65, run 1: main's build (s64c = 0b8b6a6) measured where issues 3 and 4 have numbers missing or old:
# matmul at decode sizes (M 1-64, % of copy on the weights) against cuBLAS; the attention backward against SDPA's;
# prefill with Dqk 192 / Dv 128 against SDPA.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s64c/libtessera.so.xz > $B/libmain.so
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run1; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_r1; rm -rf /tmp/tc_r1
S=""
for m in 1 2 4 8 16 32 64; do for nk in 4096x4096 14336x4096 4096x14336 128256x4096; do S="$S,${m}x$nk"; done; done
timeout 200 python3 bench/matmul_bench.py --lib $B/libmain.so --no-glu --shapes ${S#,} --rounds 2 --out $R 2>&1 | tee $R/matmul_decode.txt | grep -E "ratio|rror"
date +%T
timeout 150 python3 bench/gpu_bench.py --lib $B/libmain.so --backward-only --out $R/bwd > $R/backward.txt 2>&1; mkdir -p $R/bwd; grep -E "backward" $R/backward.txt | tail -n 12
date +%T
timeout 150 python3 bench/gpu_bench.py --lib $B/libmain.so --prefill-only --head-dims 192 --out $R/d192 > $R/d192.txt 2>&1; grep -E "fmha" $R/d192.txt | tail -n 12
cp /tmp/tc_r1/autotune.json $R/ 2>/dev/null
date +%T
