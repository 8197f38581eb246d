#!/usr/bin/env bash
# Session 64, run 1: main (s63d) against s64a (TileSchedule::at in 32-bit arithmetic where a schedule has fewer
# than 2^31 items; fmha's items through it again), alternated library by library in one run: the matmul sweep of
# issue 3 against cuBLAS (one tuning cache shared by all runs, so both builds run the same configurations), and
# prefill attention in forced configurations against cuDNN SDPA.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s63d/libtessera.so.xz > $B/libmain.so
xz -dc ../../../.device/s64a/libtessera.so.xz > $B/libnew.so
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run1; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_r1; rm -rf /tmp/tc_r1
for lib in new main new main; do
  timeout 150 python3 bench/results/2026-12-02-h200-session64/matmul_ab.py --lib $B/lib$lib.so --label "$lib " 2>&1 | grep -E "matmul|median|rror"
done | tee $R/matmul.txt
date +%T
run() { local lib=$1 cfg=$2; shift 2; TESSERA_AUTOTUNE_FORCE=fmha:$cfg timeout 60 python3 bench/profile_fmha.py --lib $B/lib$lib.so "$@" 2>&1 | tail -n 1 | sed "s/^/$lib $cfg: /"; }
for round in 1 2; do
  for lib in main new; do
    for c in "" --causal; do
      run $lib bn128_s5_overlap_persistent 16 16 1024 128 $c --cudnn
      run $lib bn128_s6_persistent 4 16 4096 128 $c --cudnn
    done
    run $lib bn128_s5_overlap_persistent 1 32 2048 128 --causal --cudnn
  done
done | tee $R/forced.txt
date +%T
