#!/usr/bin/env bash
# Session 68, run 4: the producer warpgroup's 128 threads copying (run 3: 5.7% and 3.6% faster than the copy
# engine, 32 copiers still 1.8x slower), with its three fence placements: none, in the copiers one stage behind
# (pfence), in the consumers after their wait (cfence). Alternated three times against the copy engine and
# cuDNN, after a check of every new form against the fp32 reference.
set -u
cd "$(dirname "$0")/../../.."
B=/tmp/bin; mkdir -p $B
xz -dc .device/s68c/libtessera.so.xz > $B/libexp.so || exit 1
nvidia-smi -L; date +%T
R=$OUT/run4; mkdir -p $R
CHECK=bench/results/2026-12-02-h200-session67/run9_check.py
for cfg in wg_nofence_bn64_s3_x2 wg_pfence_bn64_s3_x2 wg_cfence_bn64_s3_x2 wg_nofence_bn32_s6_x2; do
  for seed in 4 5; do
    echo "$cfg seed $seed: $(TESSERA_AUTOTUNE_FORCE=fmha_decode:$cfg TESSERA_CACHE_DIR=/tmp/tc4c timeout 25 python3 $CHECK $B/libexp.so $seed 2>&1 | tail -n 1)"
  done
done | tee $R/check.txt
P="python3 bench/profile_decode.py --lib $B/libexp.so"
for round in 1 2 3; do
  for shape in "32 4096" "64 8192" "8 8192"; do
    echo "round $round sdpa $shape: $(TESSERA_AUTOTUNE_FORCE=fmha_decode:bn64_s3_x2 TESSERA_CACHE_DIR=/tmp/tc4 timeout 40 $P --sdpa $shape 2>&1 | tail -n 1)"
    for cfg in bn64_s3_x2 wg_nofence_bn64_s3_x2 wg_pfence_bn64_s3_x2 wg_cfence_bn64_s3_x2; do
      echo "round $round $cfg $shape: $(TESSERA_AUTOTUNE_FORCE=fmha_decode:$cfg TESSERA_CACHE_DIR=/tmp/tc4 timeout 30 $P $shape 2>&1 | tail -n 1)"
    done
  done
  [ $round = 1 ] && echo "round 1 wg_nofence_bn32_s6_x2 32 4096: $(TESSERA_AUTOTUNE_FORCE=fmha_decode:wg_nofence_bn32_s6_x2 TESSERA_CACHE_DIR=/tmp/tc4 timeout 30 $P 32 4096 2>&1 | tail -n 1)"
done 2>&1 | sed -e 's/ (16-token pages, token-major)//; s/, host .* per call//; s/per call [0-9.]* us, //' | tee $R/timings.txt
date +%T
