#!/usr/bin/env bash
# Session 63, run 6: s63b (landed) against s63c (experiment: a work item's query tile and head found with 32-bit
# arithmetic instead of TileSchedule::at's 64-bit divisions, which every thread runs at every item boundary),
# forced configurations alternated library by library in one run, cuDNN SDPA in the same process.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s63b/libtessera.so.xz > $B/libmain.so
xz -dc ../../../.device/s63c/libtessera.so.xz > $B/libnew.so
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run6; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_r6; rm -rf /tmp/tc_r6
run() { local lib=$1 cfg=$2; shift 2; TESSERA_AUTOTUNE_FORCE=fmha:$cfg timeout 60 python3 bench/profile_fmha.py --lib $B/lib$lib.so "$@" 2>&1 | tail -n 1 | sed "s/^/$lib $cfg: /"; }
for round in 1 2; do
  for lib in main new; do
    for c in "" --causal; do
      run $lib bn128_s5_overlap_persistent 16 16 1024 128 $c --cudnn
      run $lib bn128_s8_persistent 8 16 2048 64 $c --cudnn
    done
    run $lib bn128_s5_overlap_persistent 1 32 2048 128 --causal --cudnn
  done
done | tee $R/forced.txt
date +%T
