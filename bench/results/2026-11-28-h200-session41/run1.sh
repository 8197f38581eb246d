#!/usr/bin/env bash
# Session 41, run 1: staged (Hopper) prefill for Dqk 192 / Dv 128 (MLA prefill). GPU suite, then the prefill
# bench against SDPA: as dispatched, and the 192 rows with TESSERA_HOPPER=0 (the generic kernel they ran before).
set -u
cd "$(dirname "$0")"
mkdir -p bin
for f in tessera_gpu_tests libtessera.so; do xz -dc new/$f.xz > bin/$f; done; chmod +x bin/tessera_gpu_tests
nvidia-smi -L; date +%T
echo "== GPU suite"
TESSERA_CACHE_DIR=/tmp/tc_s timeout 280 ./bin/tessera_gpu_tests --gtest_brief=1 > $OUT/gpu_suite.log 2>&1; echo "rc $?"
grep -E "FAILED|PASSED|tests ran|SKIPPED" $OUT/gpu_suite.log | tail -n 8
echo "== prefill bench"; date +%T
cd ../bench
TESSERA_CACHE_DIR=/tmp/tc_b timeout 200 python3 gpu_bench.py --lib ../.device/bin/libtessera.so --prefill-only --out /tmp/pb > $OUT/prefill.log 2>&1; echo "rc $?"
grep -E "^fmha|copy" $OUT/prefill.log
echo "== 192 rows on the generic kernel (TESSERA_HOPPER=0)"; date +%T
TESSERA_HOPPER=0 TESSERA_CACHE_DIR=/tmp/tc_g timeout 120 python3 gpu_bench.py --lib ../.device/bin/libtessera.so --prefill-only --head-dims 192 --out /tmp/pg > $OUT/prefill_192_generic.log 2>&1; echo "rc $?"
grep -E "^fmha" $OUT/prefill_192_generic.log
cp /tmp/pb/* $OUT/ 2>/dev/null
date +%T
