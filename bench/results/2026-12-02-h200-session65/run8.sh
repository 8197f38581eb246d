#!/usr/bin/env bash
# Session 65, run 8: fmha's work items through TileSchedule::at with a one-division path for plain grids (build
# s65d) against its own split of the item number (main, s64c), alternated library by library, each
# configuration forced, cuDNN SDPA in the same process: overlapped persistent items at D 128 (16 x 16 x 1k)
# and D 64 (8 x 16 x 2k), causal and not; a non-overlapped persistent one (4 x 16 x 4k x 128).
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s64c/libtessera.so.xz > $B/libmain.so
xz -dc ../../../.device/s65d/libtessera.so.xz > $B/libnew.so
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run8; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_r8; rm -rf /tmp/tc_r8
run() { local lib=$1 cfg=$2; shift 2; TESSERA_AUTOTUNE_FORCE=fmha:$cfg timeout 60 python3 bench/profile_fmha.py --lib $B/lib$lib.so "$@" 2>&1 | tail -n 1 | sed "s/^/$lib $cfg: /"; }
for lib in main new main new; do
  for c in "" --causal; do
    run $lib bn128_s5_overlap_persistent 16 16 1024 128 $c
    run $lib bn128_s8_overlap_persistent 8 16 2048 64 $c
    run $lib bn128_s6_persistent 4 16 4096 128 $c
  done
done | tee $R/forced.txt
date +%T
