#!/usr/bin/env bash
# Session 41, run 4: `tessera bench fmha` with Dqk 192 / Dv 128 shapes (the C++ harness, CUDA events), and
# ops check on the final library.
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc new/tessera.xz > bin/tessera; chmod +x bin/tessera
nvidia-smi -L; date +%T
TESSERA_CACHE_DIR=/tmp/tc timeout 200 ./bin/tessera bench fmha fmha_fp8 --dtype bf16 --shapes fmha:16x16x1024x192x128,fmha:4x16x4096x192x128,fmha_fp8:4x16x4096x192x128,4x16x4096x128 --out /tmp/b > /tmp/b.log 2>&1; echo "rc $?"
grep -E "^fmha" /tmp/b.log; cp /tmp/b/bench.md $OUT/bench_fmha_mla_prefill.md
echo "== ops check"; date +%T
TESSERA_CACHE_DIR=/tmp/tc_o timeout 120 ./bin/tessera ops check --backend tile-cuda > $OUT/ops_check.log 2>&1; tail -n 1 $OUT/ops_check.log
date +%T
