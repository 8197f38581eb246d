#!/usr/bin/env bash
# Session 63, run 2: main's build (s62e) against s63a (causal work items in pairs on persistent grids), the same
# forced configurations alternated library by library in one run, cuDNN SDPA in the same process; non-causal 1k
# as a control (its schedule is unchanged).
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s62e/libtessera.so.xz > $B/libmain.so
xz -dc ../../../.device/s63a/libtessera.so.xz > $B/libnew.so
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run2; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_r2; rm -rf /tmp/tc_r2
run() { local lib=$1 cfg=$2; shift 2; TESSERA_AUTOTUNE_FORCE=fmha:$cfg timeout 60 python3 bench/profile_fmha.py --lib $B/lib$lib.so "$@" 2>&1 | tail -n 1 | sed "s/^/$lib $cfg: /"; }
for round in 1 2; do
  for lib in main new; do
    for cfg in bn128_s6_persistent bn64_s8_persistent bn128_s5_overlap_persistent; do run $lib $cfg 16 16 1024 128 --causal --cudnn; done
    for cfg in bn128_s8_persistent bn128_s8_overlap_persistent; do run $lib $cfg 8 16 2048 64 --causal --cudnn; done
    for cfg in bn128_s6_persistent bn128_s5_overlap_persistent; do run $lib $cfg 1 32 2048 128 --causal --cudnn; done
    run $lib bn128_s5_overlap_persistent 16 16 1024 128 --cudnn
  done
done | tee $R/forced.txt
run main bn128_s6 16 16 1024 128 --causal --cudnn | tee -a $R/forced.txt
date +%T
