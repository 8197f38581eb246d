#!/usr/bin/env bash
# Session 65, run 2b: stream-K (s65a) against main (s64c). The decode sweep (M 1-64 x issue 3's four (N, K))
# and the SwiGLU table with each build's tuner choosing (a cache per build), builds alternated; then the new
# candidate forced against the one-wave split at N = 14336 and 4096 x 14336 (run2a.sh has the GPU tests).
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s64c/libtessera.so.xz > $B/libmain.so
xz -dc ../../../.device/s65a/libtessera.so.xz > $B/libnew.so
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run2b; mkdir -p $R
S=""
for m in 1 2 4 8 16 32 64; do for nk in 4096x4096 14336x4096 4096x14336 128256x4096; do S="$S,${m}x$nk"; done; done
for lib in new main new main; do
  TESSERA_CACHE_DIR=/tmp/tc_$lib timeout 150 python3 bench/matmul_bench.py --lib $B/lib$lib.so --no-glu --shapes ${S#,} --rounds 2 --out /tmp --label "$lib " 2>&1 | grep -E "ratio|rror"
done | tee $R/matmul_decode.txt
date +%T
for lib in new main new main; do
  TESSERA_CACHE_DIR=/tmp/tc_$lib timeout 100 python3 bench/matmul_bench.py --lib $B/lib$lib.so --glu-only --out /tmp --label "$lib " 2>&1 | grep -E "matmul_silu_and_mul|copy" | sed "s/^/$lib /"
done | tee $R/glu.txt
date +%T
S2=8x14336x4096,32x14336x4096,64x14336x4096,16x4096x14336,16x4096x4096,16x128256x4096
for cfg in swapab_bw64_bk128_streamk swapab_bw64_bk128_wave swapab_bw64_bk128_streamk swapab_bw64_bk128_wave; do
  TESSERA_AUTOTUNE_FORCE=matmul:$cfg TESSERA_CACHE_DIR=/tmp/tc_f timeout 60 python3 bench/matmul_bench.py --lib $B/libnew.so --no-glu --shapes $S2 --rounds 2 --out /tmp --label "$cfg " 2>&1 | grep -E "ratio|rror"
done | tee $R/forced.txt
cp /tmp/tc_new/autotune.json $R/autotune_new.json 2>/dev/null
date +%T
