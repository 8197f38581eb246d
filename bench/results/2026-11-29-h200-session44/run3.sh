#!/usr/bin/env bash
# Session 44, run 3: the per-call constant of decode-size matmuls in a chain of dependent calls, with and
# without programmatic dependent launch (TESSERA_PDL=0), tessera and cuBLAS in the same run.
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc r2/libtessera.so.xz > bin/libtessera.so
nvidia-smi -L; date +%T
cd ../bench
S=1x4096x4096,1x14336x4096,1x128256x4096,16x4096x4096,16x14336x4096,16x128256x4096
for round in 1 2; do
  for pdl in 1 0; do
    echo "== TESSERA_PDL=$pdl, round $round"
    rm -rf /tmp/tc /tmp/o; mkdir -p /tmp/o
    TESSERA_PDL=$pdl TESSERA_CACHE_DIR=/tmp/tc timeout 120 python3 matmul_bench.py --lib ../.device/bin/libtessera.so --no-glu --shapes $S --out /tmp/o 2>&1 | grep -E "^[0-9]|copy"
  done
done
date +%T
