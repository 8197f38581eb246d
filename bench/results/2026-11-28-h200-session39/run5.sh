#!/usr/bin/env bash
# Session 39, run 5: Nsight Compute on the generic matmul (tensor-core mma) and on layer_norm (16-bit rows).
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc new/tessera.xz > bin/tessera; chmod +x bin/tessera
export TESSERA_CACHE_DIR=/tmp/tc TESSERA_AUTOTUNE=0
nvidia-smi -L
S="--section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats --section MemoryWorkloadAnalysis"
timeout 120 ncu --kernel-name-base mangled -k regex:Matmul -s 3 -c 1 $S ./bin/tessera bench matmul --shapes 2048x2048x2047 --out /tmp/m > $OUT/ncu_generic_matmul.txt 2>&1
timeout 90 ncu --kernel-name-base mangled -k regex:LayerNorm -s 3 -c 1 $S ./bin/tessera bench layer_norm --shapes 16384x8192 --out /tmp/l > $OUT/ncu_layer_norm.txt 2>&1
grep -E "Duration|Executed Ipc|Instructions|Registers|Theoretical Occ|Achieved Occ|Stall|Throughput|Block Size|Shared Memory" $OUT/ncu_generic_matmul.txt | head -40
echo ===
grep -E "Duration|Instructions|Registers|DRAM Throughput|Stall Long|Stall Not|Selected" $OUT/ncu_layer_norm.txt | head -20
