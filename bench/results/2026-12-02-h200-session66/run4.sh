#!/usr/bin/env bash
# Session 66, run 4: what bounds decode attention's read rate. s66x = main with the consumers of both decode
# kernels doing nothing but release each stage (TESSERA_EXP_NO_CONSUME: wrong results, the loads alone). Against
# main's build (s65b), each configuration forced, contiguous caches (and one 16-token-page case), in CUDA graphs.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s65b/libtessera.so.xz > $B/libmain.so || exit 1
xz -dc ../../../.device/s66x/libtessera.so.xz > $B/libexp.so || exit 1
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run4; mkdir -p $R
{
for shape in "32 4096" "1 32768"; do
  for cfg in bn64_s3_x2 bn64_s4 bn32_s6_x2 sliced_bn64_s3_x2; do
    for lib in main exp; do
      echo "$lib $cfg contiguous $shape: $(TESSERA_AUTOTUNE_FORCE=fmha_decode:$cfg TESSERA_CACHE_DIR=/tmp/tc4 timeout 60 python3 bench/profile_decode.py --lib $B/lib$lib.so --contiguous $shape 2>&1 | tail -n 1)"
    done
  done
done
for lib in main exp; do
  echo "$lib bn64_s3_x2 page16 32 4096: $(TESSERA_AUTOTUNE_FORCE=fmha_decode:bn64_s3_x2 TESSERA_CACHE_DIR=/tmp/tc4 timeout 60 python3 bench/profile_decode.py --lib $B/lib$lib.so 32 4096 2>&1 | tail -n 1)"
done
} | tee $R/no_consume.txt
date +%T
