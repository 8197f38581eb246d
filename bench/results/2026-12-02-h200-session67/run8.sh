#!/usr/bin/env bash
# Session 67, run 8: run 7's probe (a tile's block table entries read once) with one warp copying: could the
# staged pipeline's one producer warp issue the copies itself? 32 and 64 threads, 16-token pages and contiguous.
set -u
cd "$(dirname "$0")/../../.."
nvidia-smi -L; date +%T
R=$OUT/run8; mkdir -p $R
for shape in "32 4096" "64 8192"; do
  timeout 120 python3 bench/probe_decode_reads.py --threads 32,64 --tiles 64x3,32x6 $shape 2>&1
done | tee $R/probe.txt
date +%T
