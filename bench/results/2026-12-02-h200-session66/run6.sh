#!/usr/bin/env bash
# Session 66, run 6: run 5's panel-by-panel copies (TESSERA_EXP_DECODE=2, build s66y) on the engine's layout,
# 16-token pages in a scrambled order, at four batch sizes; the tuner's choice (a cache per mode) and two forced
# configurations, two rounds alternated.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s66y/libtessera.so.xz > $B/libexp.so || exit 1
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run6; mkdir -p $R
{
for round in 1 2; do
  for shape in "8 8192" "32 4096" "64 8192" "1 32768"; do
    for e in 0 2; do
      echo "r$round exp $e tuned page16 $shape: $(TESSERA_EXP_DECODE=$e TESSERA_CACHE_DIR=/tmp/tc6_$e timeout 60 python3 bench/profile_decode.py --lib $B/libexp.so $shape 2>&1 | tail -n 1)"
    done
    for e in 0 2; do
      echo "r$round exp $e sliced_bn64_s3_x2 page16 $shape: $(TESSERA_EXP_DECODE=$e TESSERA_AUTOTUNE_FORCE=fmha_decode:sliced_bn64_s3_x2 TESSERA_CACHE_DIR=/tmp/tc6 timeout 60 python3 bench/profile_decode.py --lib $B/libexp.so $shape 2>&1 | tail -n 1)"
    done
  done
done
} | tee $R/paged.txt
date +%T
