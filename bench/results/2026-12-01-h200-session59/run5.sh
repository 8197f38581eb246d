#!/usr/bin/env bash
# Session 59, run 5: the bench's lead before each timed batch. main's harness (s59c binary with its defaults: a
# 32 MB memset lead, 200 us batches) against the new one (s59d: the lead reads 256 MB through the tuner's L2
# flush kernel, leaving clean lines), at 200 us batches and at --batch-us 2000, alternated, same tuner cache.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s59c/tessera.xz > $B/tessera_old; chmod +x $B/tessera_old
xz -dc ../../../.device/s59d/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run5; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
D=8x8192x32x8x128,32x4096x32x8x128,1x32768x32x8x128,16x8192x32x8x128,mla_decode:64x4096,mla_decode:128x4096,mla_decode:128x8192
ROWS="rms_norm rms_norm_residual layer_norm softmax gelu silu_and_mul rope embedding"
M=1x4096x4096,16x4096x4096,16x14336x4096,1x14336x4096,4096x4096x4096
run() {  # name binary args...
  local name=$1; shift
  timeout 200 "$@" --out /tmp/x > /dev/null 2>&1; local rc=$?
  cp /tmp/x/bench.md $R/$name.md; echo "$name rc $rc"
  grep -E "^\| [a-z]" /tmp/x/bench.md | grep -v "^| op" | cut -d'|' -f2,3,4,8,11
  grep -E "^Ceilings" /tmp/x/bench.md | cut -c1-90
}
timeout 300 $B/tessera bench fmha_decode mla_decode $ROWS matmul fmha --shapes $D,16384x8192,4096x4096,$M,16x16x1024x128 --out /tmp/w > /dev/null 2>&1
echo "warm rc $?"
for round in 1 2; do
  run old_$round $B/tessera_old bench fmha_decode mla_decode $ROWS matmul --shapes $D,16384x8192,4096x4096,$M
  run new_$round $B/tessera bench fmha_decode mla_decode $ROWS matmul --shapes $D,16384x8192,4096x4096,$M
  run new2000_$round $B/tessera bench fmha_decode mla_decode $ROWS matmul --shapes $D,16384x8192,4096x4096,$M --batch-us 2000
done
date +%T
