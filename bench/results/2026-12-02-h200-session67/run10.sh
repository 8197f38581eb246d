#!/usr/bin/env bash
# Session 67, run 10: run 9's experiment (s67x) with the lanes' copy addresses read into registers first (run 9:
# right results, but 2.5x slower than the copy engine: each copy's asm clobbers memory, so the view's fields and
# the box rows were read again before every copy). Correctness, then lanes_bn64_s3_x2 against bn64_s3_x2.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s67x/libtessera.so.xz > $B/libexp.so || exit 1
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run10; mkdir -p $R
echo "lanes_bn64_s3_x2: $(TESSERA_AUTOTUNE_FORCE=fmha_decode:lanes_bn64_s3_x2 TESSERA_CACHE_DIR=/tmp/tc10c timeout 25 python3 bench/results/2026-12-02-h200-session67/run9_check.py $B/libexp.so 3 2>&1 | tail -n 1)" | tee $R/check.txt
grep -q "ok)" $R/check.txt || exit 0
for shape in "32 4096" "64 8192"; do
  for cfg in bn64_s3_x2 lanes_bn64_s3_x2; do
    echo "$cfg $shape: $(TESSERA_AUTOTUNE_FORCE=fmha_decode:$cfg TESSERA_CACHE_DIR=/tmp/tc10 timeout 30 python3 bench/profile_decode.py --lib $B/libexp.so $shape 2>&1 | tail -n 1)"
  done
done | tee $R/timings.txt
date +%T
