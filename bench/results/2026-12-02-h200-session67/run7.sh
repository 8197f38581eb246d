#!/usr/bin/env bash
# Session 67, run 7: the probe again with a tile's block table entries read once before its copies and the
# threads' rows known at compile time (runs 4-5 read an entry before every 16-byte copy, which may have held back
# blocks of few threads; run 6: cuDNN's kernel copies with 128 threads, 32 cp.async a thread for each 128-key
# tile of K and V). Beside it, in the same run: the copy engine's loads alone panel by panel (s66y,
# TESSERA_EXP_DECODE=10), the landed kernel (s67b) and cuDNN. 16-token pages.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s67b/libtessera.so.xz > $B/libmain.so || exit 1
xz -dc ../../../.device/s66y/libtessera.so.xz > $B/libexp.so || exit 1
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run7; mkdir -p $R
for shape in "32 4096" "64 8192"; do
  timeout 150 python3 bench/probe_decode_reads.py --threads 64,128,256 --tiles 64x2,64x3,32x6 $shape 2>&1
done | tee $R/probe.txt
date +%T
{
for shape in "32 4096" "64 8192"; do
  echo "loads alone (copy engine, panel by panel) bn64_s3_x2 $shape: $(TESSERA_EXP_DECODE=10 TESSERA_AUTOTUNE_FORCE=fmha_decode:bn64_s3_x2 TESSERA_CACHE_DIR=/tmp/tc7x timeout 60 python3 bench/profile_decode.py --lib $B/libexp.so $shape 2>&1 | tail -n 1)"
  echo "landed kernel, tuned $shape: $(TESSERA_CACHE_DIR=/tmp/tc7 timeout 90 python3 bench/profile_decode.py --lib $B/libmain.so --sdpa $shape 2>&1 | tail -n 2 | tr '\n' ' ')"
done
} | tee $R/kernels.txt
date +%T
