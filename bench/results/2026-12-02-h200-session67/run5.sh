#!/usr/bin/env bash
# Session 67, run 5: run 4's probe with fewer threads copying: would one producer warp (32) or two (64) issuing
# cp.async read as fast as 128 or 256 threads? 64- and 32-token tiles, 96 KB a block (two blocks an SM).
set -u
cd "$(dirname "$0")/../../.."
nvidia-smi -L; date +%T
R=$OUT/run5; mkdir -p $R
for shape in "32 4096" "64 8192"; do
  timeout 120 python3 bench/probe_decode_reads.py --threads 32,64,128,256 --tiles 64x3,32x6 $shape 2>&1
done | tee $R/probe.txt
date +%T
