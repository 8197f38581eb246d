#!/usr/bin/env bash
# Session 59, run 3: does host time leak into `tessera bench`'s timed batches? The same binary (s59b: the lead
# write's size from TESSERA_BENCH_LEAD_MB) with the old 32 MB lead and with 256 MB, alternated, on the decode
# shapes, MLA, prefill at 1k and a few row ops and matmuls.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s59b/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run3; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
# fill the tuner's cache first, so both leads time the same choices
timeout 200 $B/tessera bench fmha_decode mla_decode --shapes 8x8192x32x8x128,32x4096x32x8x128,1x32768x32x8x128,mla_decode:64x4096,mla_decode:128x4096 --out /tmp/w > /dev/null 2>&1
for round in 1 2; do
  for mb in 32 256; do
    TESSERA_BENCH_LEAD_MB=$mb timeout 200 $B/tessera bench fmha_decode mla_decode --shapes 8x8192x32x8x128,32x4096x32x8x128,1x32768x32x8x128,mla_decode:64x4096,mla_decode:128x4096 --out /tmp/a > /dev/null 2>&1
    echo "decode lead $mb round $round rc $?"; cp /tmp/a/bench.md $R/decode_lead${mb}_$round.md
    grep -E "^\| (fmha|mla)" /tmp/a/bench.md | cut -d'|' -f3,4,5,8
  done
done
for mb in 32 256; do
  TESSERA_BENCH_LEAD_MB=$mb timeout 200 $B/tessera bench rms_norm rope embedding matmul --shapes 16384x8192,1x4096x4096,16x4096x4096,16x14336x4096 --out /tmp/b > /dev/null 2>&1
  echo "rows+matmul lead $mb rc $?"; cp /tmp/b/bench.md $R/rows_lead${mb}.md
  grep -E "^\| [a-z]" /tmp/b/bench.md | grep -v "^| op" | cut -d'|' -f2,3,4,8,11
done
date +%T
