#!/usr/bin/env bash
# Session 46, run 5: bench/probes/decode_placement.py (which buffers decide decode attention's time at B 1),
# one configuration forced, then with the tuner's choice.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s46/libtessera.so.xz > $B/libtessera.so
nvidia-smi -L; date +%T
export TESSERA_CACHE_DIR=/tmp/tc
TESSERA_AUTOTUNE_FORCE=fmha_decode:bn64_s3_x2_short timeout 200 python3 ../../probes/decode_placement.py --lib $B/libtessera.so
date +%T
