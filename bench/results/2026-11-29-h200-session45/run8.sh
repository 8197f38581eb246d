#!/usr/bin/env bash
# Session 45, run 8: bench/probes/few_rows_variants.cu with persistent blocks, against the library's
# rows1_bn4_x2 and cuBLAS, launches back to back (dependent launch), weights rotated past L2.
set -u
cd "$(dirname "$0")"
nvidia-smi -L; date +%T
for round in 1 2; do
  timeout 200 ./probe/few_rows_variants 2>&1 | grep -E "==|cublas|kept|persistent|WRONG|error"
done
date +%T
