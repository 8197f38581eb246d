#!/usr/bin/env bash
# Session 66, run 1: does decode attention read its cache faster when a KV head's page is one block of memory?
# The engine's cache is [pages, page, Hkv, D]: a head's 16-token box is 16 rows of 256 bytes, 2 KB apart.
# Main's build (s65b), fmha_decode through the C API in CUDA graphs (bench/profile_decode.py), each layout in
# its own process and tuning cache, two rounds; cuDNN SDPA on a contiguous [B, Hkv, S, D] copy once a shape.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s65b/libtessera.so.xz > $B/libmain.so || exit 1
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run1; mkdir -p $R
declare -A L=([tm16]="" [hm16]="--head-major" [tm64]="--page 64" [hm64]="--page 64 --head-major" [tmc]="--contiguous" [hmc]="--contiguous --head-major")
for round in 1 2; do
  for shape in "1 32768" "8 8192" "32 4096" "64 8192" "4 16384"; do
    for lay in tm16 hm16 tm64 hm64 tmc hmc; do
      extra=""; [ $round = 1 ] && [ $lay = tm16 ] && extra="--sdpa"
      TESSERA_CACHE_DIR=/tmp/tc_$lay timeout 60 python3 bench/profile_decode.py --lib $B/libmain.so ${L[$lay]} $extra $shape 2>&1 | sed "s/^/r$round $lay /"
    done
  done
done | tee $R/layouts.txt
date +%T
