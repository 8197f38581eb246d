#!/usr/bin/env bash
# Session 67, run 4: could a producer whose threads copy whole 256-byte rows (cp.async, as cuDNN's decode kernel)
# read K and V faster than the copy engine? bench/probe_decode_reads.py (a block a KV head, threads copying into
# a ring of stages, nothing else) against, in the same run: the copy engine's loads alone (s66y, session 66's
# switch: TESSERA_EXP_DECODE=8 consumers that only release, box by box; =10 the same panel by panel), tessera's
# landed kernel (s67b) and cuDNN (SDPA on a contiguous copy).
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s67b/libtessera.so.xz > $B/libmain.so || exit 1
xz -dc ../../../.device/s66y/libtessera.so.xz > $B/libexp.so || exit 1
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run4; mkdir -p $R
for shape in "32 4096" "64 8192"; do
  timeout 120 python3 bench/probe_decode_reads.py $shape 2>&1
done | tee $R/probe.txt
date +%T
{
for shape in "32 4096" "64 8192"; do
  for layout in "--contiguous" ""; do
    for e in 8 10; do
      echo "loads alone (copy engine, exp $e) bn64_s3_x2 $layout $shape: $(TESSERA_EXP_DECODE=$e TESSERA_AUTOTUNE_FORCE=fmha_decode:bn64_s3_x2 TESSERA_CACHE_DIR=/tmp/tc4x$e timeout 60 python3 bench/profile_decode.py --lib $B/libexp.so $layout $shape 2>&1 | tail -n 1)"
    done
    echo "landed kernel, tuned $layout $shape: $(TESSERA_CACHE_DIR=/tmp/tc4 timeout 90 python3 bench/profile_decode.py --lib $B/libmain.so --sdpa $layout $shape 2>&1 | tail -n 2 | tr '\n' ' ')"
  done
done
} | tee $R/kernels.txt
date +%T
