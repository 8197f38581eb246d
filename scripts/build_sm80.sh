#!/usr/bin/env bash
# Builds the library, the command line and the GPU tests with the sm_80 form of every kernel (compute_80: the
# code an A100 runs) compiled for a Hopper GPU (sm_90 machine code), into BUILD_DIR (default build-sm80/). On an
# H100 or H200 that build runs what a GPU before Hopper runs (cp.async staged pipelines, mma.sync), with no
# compilation at load: `tessera info` says "kernels: sm_80". That is how those paths are tested and timed on
# the Hopper machine. TESSERA_SM80_GENCODE overrides the targets (e.g. code=compute_80 for PTX only).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-sm80}
export PATH="$PATH:/usr/local/cuda/bin"
start=$(date +%s)
mkdir -p "$BUILD_DIR"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DTESSERA_CUDA_GENCODE="${TESSERA_SM80_GENCODE:--gencode=arch=compute_80,code=sm_90}" \
  >"$BUILD_DIR.configure.log" 2>&1 || { cat "$BUILD_DIR.configure.log"; exit 1; }
cmake --build "$BUILD_DIR" -j "${JOBS:-$(nproc)}" --target tessera tessera_cli tessera_gpu_tests
echo "build (sm_80 form): $BUILD_DIR in $(( $(date +%s) - start )) s"
