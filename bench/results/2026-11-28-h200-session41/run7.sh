#!/usr/bin/env bash
# Session 41, run 7: Nsight Compute on the generic prefill kernel (TESSERA_HOPPER=0), 4 x 16 x 4k x 128, bf16.
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc new/libtessera.so.xz > bin/libtessera.so
nvidia-smi -L; date +%T
cd ../bench
export TESSERA_HOPPER=0 TESSERA_CACHE_DIR=/tmp/tc7
true
timeout 240 ncu --kernel-name-base mangled -k regex:4Fmha -c 1 --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy python3 profile_fmha.py --lib ../.device/bin/libtessera.so 4 16 4096 128 --once > $OUT/ncu_generic_fmha.txt 2>&1; echo "rc $?"
grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Stall|Registers Per|Achieved Occupancy|Theoretical Occupancy|Shared Memory Configuration|Block Limit|Issue Slots|Executed Ipc|Warp Cycles Per Issued" $OUT/ncu_generic_fmha.txt | head -40
date +%T
