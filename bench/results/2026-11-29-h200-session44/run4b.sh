#!/usr/bin/env bash
# Session 44, run 4: Nsight Compute on 16 x 14336 x 4096, tessera's chosen swap-AB configuration against
# cuBLAS's kernel (each in isolation: ncu serializes kernels and flushes caches between them). Second call:
# tessera's kernels are named kernel_entry<...> (the first call's regex matched none).
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc r2/libtessera.so.xz > bin/libtessera.so
nvidia-smi -L; date +%T
cd ../bench
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats"
for cfg in swapab_bw64_bk128_wave swapab_bw128_bk64; do
  echo "== tessera $cfg"
  TESSERA_AUTOTUNE_FORCE=matmul:$cfg timeout 120 ncu $S -k regex:kernel_entry -c 1 -s 2 python3 profile_matmul.py --lib ../.device/bin/libtessera.so 16 14336 4096 2>&1 | grep -vE "^==PROF==|^$" | head -150
done
date +%T
