#!/usr/bin/env bash
# Session 59, run 9: mla_decode, main's build (s59e) against the running row sums (s59f), alternated, three rounds.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s59e/tessera.xz > $B/tessera_main; chmod +x $B/tessera_main
xz -dc ../../../.device/s59f/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run9; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
MLA=mla_decode:64x4096,mla_decode:128x4096,mla_decode:64x8192,mla_decode:128x8192,mla_decode:64x32768
for r in 1 2 3; do
  for v in main new; do
    bin=$B/tessera; [ $v = main ] && bin=$B/tessera_main
    timeout 120 $bin bench mla_decode --shapes $MLA --out /tmp/x > /dev/null 2>&1; echo "$v round $r rc $?"
    cp /tmp/x/bench.md $R/mla_${v}_$r.md; grep -E "^\| mla" /tmp/x/bench.md | cut -d'|' -f3,4,5 | tr '\n' ';'; echo
  done
done
date +%T
