#!/usr/bin/env bash
# Session 51, run 4: the few-rows configurations forced one at a time (run 2's build), 1 and 4 rows, to see what
# the tuner saw: rows1_bn4_x2 against rows1_bn4_x2_chunked at one row; rows4_bn1_x2, rows4_bn4_x2_chunked,
# rows4_bn2_x4_chunked and swap-AB's first at four. The tuner's cache of run 2's sweep is written here too.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s51b/tessera.xz > $B/tessera; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
one=1x4096x4096,1x4096x14336,1x14336x4096,1x28672x4096,1x128256x4096
four=4x4096x4096,4x4096x14336,4x6144x4096,4x28672x4096
for round in 1 2; do
  for c in rows1_bn4_x2 rows1_bn4_x2_chunked; do
    TESSERA_CACHE_DIR=/tmp/tc_$c TESSERA_AUTOTUNE_FORCE=matmul:$c timeout 100 $B/tessera bench matmul --dtype bf16 --shapes $one \
      --out /tmp/b_$c > /tmp/b.log 2>&1
    echo "round $round $c rc $?"; grep "^| matmul" /tmp/b_$c/bench.md | awk -F'|' '{print $3, $4, $7}'
  done
  for c in rows4_bn1_x2 rows4_bn4_x2_chunked rows4_bn2_x4_chunked swapab_bw64_bk128; do
    TESSERA_CACHE_DIR=/tmp/tc_$c TESSERA_AUTOTUNE_FORCE=matmul:$c timeout 100 $B/tessera bench matmul --dtype bf16 --shapes $four \
      --out /tmp/b_$c > /tmp/b.log 2>&1
    echo "round $round $c rc $?"; grep "^| matmul" /tmp/b_$c/bench.md | awk -F'|' '{print $3, $4, $7}'
  done
done
TESSERA_CACHE_DIR=$OUT/tuner timeout 100 $B/tessera bench matmul --dtype bf16 --shapes $one,$four --out /tmp/b_tuned > /tmp/b.log 2>&1
echo "tuned rc $?"; grep "^| matmul" /tmp/b_tuned/bench.md | awk -F'|' '{print $3, $4, $7, $12}'
date +%T
