#!/usr/bin/env bash
# Configures and builds tessera into BUILD_DIR (default build/). Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
export PATH="$PATH:/usr/local/cuda/bin"
start=$(date +%s)
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "$@" >"$BUILD_DIR.configure.log" 2>&1 || { cat "$BUILD_DIR.configure.log"; exit 1; }
grep -E "tessera:" "$BUILD_DIR.configure.log" || true
cmake --build "$BUILD_DIR" -j "${JOBS:-$(nproc)}"
echo "build: $BUILD_DIR in $(( $(date +%s) - start )) s"
