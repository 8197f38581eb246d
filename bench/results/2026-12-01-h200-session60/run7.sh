#!/usr/bin/env bash
# Session 60, run 7: mla_decode, s59f (main's kernel) against s60c (scores in k shares), alternated, three rounds.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s59f/tessera.xz > $B/tessera_old; chmod +x $B/tessera_old
xz -dc ../../../.device/s60c/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run7; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
MLA=mla_decode:64x4096,mla_decode:128x4096,mla_decode:64x8192,mla_decode:128x8192,mla_decode:64x32768
for r in 1 2 3; do
  for v in old new; do
    bin=$B/tessera; [ $v = old ] && bin=$B/tessera_old
    timeout 120 $bin bench mla_decode --shapes $MLA --out /tmp/x > /dev/null 2>&1; echo "mla $v $r rc $?"
    grep -E "^\| mla" /tmp/x/bench.md | cut -d'|' -f3,4,5 | tr -s ' ' | tr '\n' ';'; echo
  done
done
cp /tmp/x/bench.md $R/mla_new_3.md
date +%T
