#!/usr/bin/env bash
# Session 59, run 12: the M = 16 matmuls under the 0.85x floor: each swap-AB candidate forced at 16 x 4096 x 4096
# and 16 x 14336 x 4096 (cuBLAS timed beside each), and the tuner's own choice. Build s59f.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s59f/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run12; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
S=16x4096x4096,16x14336x4096,8x4096x4096
timeout 60 $B/tessera bench matmul --shapes $S --out /tmp/x > /dev/null 2>&1; echo "tuned rc $?"
cp /tmp/x/bench.md $R/tuned.md; grep -E "^\| matmul" /tmp/x/bench.md | cut -d'|' -f3,4,8,11,12 | tr '\n' ';'; echo
cp $TESSERA_CACHE_DIR/autotune.json $R/autotune.json
for c in swapab_bw128_bk64 swapab_bw64_bk128 swapab_bw128_bk64_reduce swapab_bw64_bk128_wave staged_bm64_bn64_c2; do
  TESSERA_AUTOTUNE_FORCE=matmul:$c timeout 60 $B/tessera bench matmul --shapes $S --out /tmp/x > /dev/null 2>&1
  echo "$c rc $?: $(grep -E '^\| matmul' /tmp/x/bench.md | cut -d'|' -f4,11 | tr '\n' ' ')"
done
date +%T
