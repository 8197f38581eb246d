#!/usr/bin/env bash
# Session 41, run 5: which staged prefill configuration the autotuner keeps per shape (192/128 and the rest).
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc new/libtessera.so.xz > bin/libtessera.so
nvidia-smi -L; date +%T
cd ../bench
TESSERA_CACHE_DIR=/tmp/tc5 timeout 200 python3 gpu_bench.py --lib ../.device/bin/libtessera.so --prefill-only --out /tmp/p5 > $OUT/prefill.log 2>&1; echo "rc $?"
grep -E "^fmha" $OUT/prefill.log
ls -R /tmp/tc5 | head; find /tmp/tc5 -type f -exec cat {} \; > $OUT/autotune_cache.txt; grep -o '"fmha[^}]*' $OUT/autotune_cache.txt | head -40
cp /tmp/p5/ops_bench.md $OUT/ 2>/dev/null
date +%T
