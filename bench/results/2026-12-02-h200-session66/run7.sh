#!/usr/bin/env bash
# Session 66, run 7: the build to land (s66z: decode attention's copies through tile::load_row_boxes_async, panel
# by panel): its decode, MLA and staged-pipeline GPU tests. Then, as the carry limit leaves room for one library,
# s66y's switch (TESSERA_EXP_DECODE=2 issues the copies in the order s66z does; 0 is main's order) alternated:
# fmha_decode on 16-token pages (the tuner's choice, a cache a mode) and mla_decode, which shares the producer
# (128 heads: compute-bound; 16 heads: memory-bound).
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s66y/libtessera.so.xz > $B/libexp.so || exit 1
xz -dc ../../../.device/s66z/tessera_gpu_tests.xz > $B/tessera_gpu_tests || exit 1; chmod +x $B/tessera_gpu_tests
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run7; mkdir -p $R
TESSERA_CACHE_DIR=/tmp/tc_tests timeout 110 $B/tessera_gpu_tests --gtest_brief=1 --gtest_filter='AttentionGpu.*Decode*:AttentionGpu.Mla*:TileStagedGpu.*' > $R/gpu_tests.txt 2>&1
echo "gpu tests rc $?"; tail -n 3 $R/gpu_tests.txt; grep -E "FAILED|Failure" $R/gpu_tests.txt | head -20
date +%T
{
for round in 1 2; do
  for e in 0 2; do
    for shape in "32 4096" "64 8192"; do
      echo "r$round exp $e fmha_decode page16 $shape: $(TESSERA_EXP_DECODE=$e TESSERA_CACHE_DIR=/tmp/tc7_$e timeout 60 python3 bench/profile_decode.py --lib $B/libexp.so $shape 2>&1 | tail -n 1)"
    done
    echo "r$round exp $e mla 64 8192: $(TESSERA_EXP_DECODE=$e TESSERA_CACHE_DIR=/tmp/tc7_$e timeout 60 python3 bench/profile_mla.py --lib $B/libexp.so 64 8192 2>&1 | tail -n 1)"
    echo "r$round exp $e mla 16 heads 64 8192: $(TESSERA_EXP_DECODE=$e TESSERA_CACHE_DIR=/tmp/tc7_$e timeout 60 python3 bench/profile_mla.py --lib $B/libexp.so --heads 16 64 8192 2>&1 | tail -n 1)"
  done
done
} | tee $R/timings.txt
date +%T
