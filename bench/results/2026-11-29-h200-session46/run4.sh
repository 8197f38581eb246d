#!/usr/bin/env bash
# Session 46, run 4: is decode attention's bimodal time at B 1 (~13 or ~17 us, session 45 run 9) a property of
# the process or of each call's buffers? The same shape six times in one `tessera bench` (fresh buffers each),
# in four processes, one configuration forced.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s46/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
export TESSERA_CACHE_DIR=/tmp/tc TESSERA_AUTOTUNE_FORCE=fmha_decode:bn64_s3_x2_short
S=fmha_decode:1x2112x32x8x128
for p in 1 2 3 4; do
  rm -rf /tmp/o; timeout 60 $B/tessera bench fmha_decode --shapes $S,$S,$S,$S,$S,$S --out /tmp/o > /tmp/b.log 2>&1
  echo "== process $p rc $?"; grep -E 'fmha_decode' /tmp/o/bench.md | grep -v '^#' | cut -c1-110
done
head -8 /tmp/o/bench.md
date +%T
