#!/usr/bin/env bash
# Session 41, run 3: the same generic prefill bench with main's library before this change (base).
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc base/libtessera.so.xz > bin/libtessera_base.so
nvidia-smi -L; date +%T
cd ../bench
TESSERA_HOPPER=0 TESSERA_CACHE_DIR=/tmp/tc_b timeout 300 python3 gpu_bench.py --lib ../.device/bin/libtessera_base.so --prefill-only --head-dims 64,128,192 --out /tmp/pg > $OUT/prefill_generic_base.log 2>&1; echo "rc $?"
grep -E "^fmha" $OUT/prefill_generic_base.log
date +%T
