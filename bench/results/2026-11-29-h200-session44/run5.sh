#!/usr/bin/env bash
# Session 44, run 5: a swap-AB stage of one swizzle panel (64 weight rows x 64 k, 16 stages: cuBLAS's stage at
# 16 x 14336 x 4096) against main's 64 x 128 k, both with the one-wave split, forced; then ncu in isolation.
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc r5/libtessera.so.xz > bin/libtessera.so
nvidia-smi -L; date +%T
cd ../bench
D=16x4096x4096,16x14336x4096,16x4096x14336,16x128256x4096,32x14336x4096,64x14336x4096,8x28672x4096
for round in 1 2; do
  for c in swapab_bw64_bk128_wave swapab_bw64_bk64_wave; do
    rm -rf /tmp/ab; mkdir -p /tmp/ab
    TESSERA_AUTOTUNE_FORCE=matmul:$c timeout 60 python3 matmul_bench.py --lib ../.device/bin/libtessera.so --no-glu --shapes $D --out /tmp/ab 2>&1 | grep -E "^[0-9]" | sed "s/^/$c  /"
  done
done
for c in swapab_bw64_bk128_wave swapab_bw64_bk64_wave; do
  echo "== ncu, clock free: $c"
  TESSERA_AUTOTUNE_FORCE=matmul:$c timeout 120 ncu --clock-control none --section SpeedOfLight --section LaunchStats -k regex:kernel_entry -c 2 -s 1 python3 profile_matmul.py --lib ../.device/bin/libtessera.so 16 14336 4096 2>&1 | grep -E "SM Frequency|Duration|DRAM Throughput|Dynamic Shared|Registers Per"
done
echo "== tuned sweep of the decode shapes from an empty cache"
rm -rf /tmp/tc /tmp/o; mkdir -p /tmp/o
TESSERA_CACHE_DIR=/tmp/tc timeout 120 python3 matmul_bench.py --lib ../.device/bin/libtessera.so --no-glu --shapes $D,1x4096x4096,1x14336x4096 --out /tmp/o 2>&1 | grep -E "^[0-9]|copy"
cp /tmp/tc/autotune.json $OUT/run5_autotune.json
date +%T
