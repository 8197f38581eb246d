#!/usr/bin/env bash
# Session 61, run 4: build s61e (s61d plus `mla_decode:BxSxH` in the bench): mla_decode with fewer query heads
# (16, as DeepSeek-V3's 128 over 8 GPUs; 32, 64), where a latent row carries less work and the kernel is
# memory-bound, against the copy ceiling measured in the same run; two rounds.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s61e/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run4; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
MLA=mla_decode:64x4096x16,mla_decode:128x4096x16,mla_decode:64x8192x16,mla_decode:128x8192x16,mla_decode:64x32768x16,mla_decode:128x32768x16,mla_decode:64x8192x32,mla_decode:64x8192x64,mla_decode:64x8192
for round in 1 2; do
  timeout 120 $B/tessera bench mla_decode --shapes $MLA --out /tmp/x > /dev/null 2>&1; echo "round $round rc $?"
  grep -E "Ceilings" /tmp/x/bench.md
  grep -E "^\| mla" /tmp/x/bench.md | cut -d'|' -f3,4,5,7,9 | tr -s ' ' | tr '\n' ';'; echo
  cp /tmp/x/bench.md $R/bench_$round.md
done
date +%T
