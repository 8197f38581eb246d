#!/usr/bin/env bash
# Session 59, run 4: per-call time against the timed batch's length (TESSERA_BENCH_BATCH_US: 200, the default, 2000,
# 20000 us of back-to-back calls between two events), with the 256 MB lead (s59c binary), decode shapes and
# MLA; then the same with dependent launch off (TESSERA_PDL=0).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s59c/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run4; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
S=8x8192x32x8x128,32x4096x32x8x128,1x32768x32x8x128,mla_decode:64x4096
timeout 200 $B/tessera bench fmha_decode mla_decode --shapes $S --out /tmp/w > /dev/null 2>&1
export TESSERA_BENCH_LEAD_MB=256
for pdl in 1 0; do
  for us in 200 2000 20000; do
    TESSERA_PDL=$pdl TESSERA_BENCH_BATCH_US=$us timeout 200 $B/tessera bench fmha_decode mla_decode --shapes $S --out /tmp/a > /dev/null 2>&1
    echo "pdl $pdl batch $us rc $?"; cp /tmp/a/bench.md $R/decode_pdl${pdl}_batch$us.md
    grep -E "^\| (fmha|mla)" /tmp/a/bench.md | cut -d'|' -f3,4,8
  done
done
for us in 200 2000; do
  TESSERA_BENCH_BATCH_US=$us timeout 200 $B/tessera bench rms_norm rope fmha matmul --shapes 16384x8192,4096x4096,16x16x1024x128,1x4096x4096,16x4096x4096 --out /tmp/b > /dev/null 2>&1
  echo "others batch $us rc $?"; cp /tmp/b/bench.md $R/others_batch$us.md
  grep -E "^\| [a-z]" /tmp/b/bench.md | grep -v "^| op" | cut -d'|' -f2,3,4,5,8,11
done
date +%T
