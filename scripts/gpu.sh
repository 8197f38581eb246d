#!/usr/bin/env bash
# The GPU workflow. Here (no GPU needed): `scripts/gpu.sh stage` builds and copies what the GPU machine needs
# into .device/ (ignored by git, carried with the call). There: `bash scripts/gpu.sh run` runs the GPU tests,
# `tessera ops check` and the benchmarks in one go, writing logs and results to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  stage)
    set -e
    bash scripts/build.sh >/dev/null
    rm -rf .device && mkdir -p .device
    cp build/tessera build/libtessera.so build/tests/tessera_gpu_tests build/tests/tessera_host_tests .device/
    strip .device/* 2>/dev/null || true
    du -sh .device
    ;;
  run)
    OUT=${OUT:-out}; mkdir -p "$OUT"
    nvidia-smi -L | tee "$OUT/gpu.txt"
    .device/tessera info
    echo "== GPU tests"
    .device/tessera_gpu_tests --gtest_brief=1 2>&1 | tee "$OUT/gpu_tests.log" | tail -n 40
    echo "== ops check"
    .device/tessera ops check 2>&1 | tee "$OUT/ops_check.log" | tail -n 60
    echo "== benchmarks"
    (cd bench && PYTHONUNBUFFERED=1 python3 gpu_bench.py --lib ../.device/libtessera.so --out "$OUT") 2>&1 | tee "$OUT/bench.log"
    echo "== tessera bench (cuBLAS baseline, ceilings measured in the same run)"
    TESSERA_CACHE_DIR="$OUT/autotune-cache" .device/tessera bench --out "$OUT/tessera-bench" 2>&1 | tee "$OUT/tessera_bench.log"
    ;;
  *) echo "usage: scripts/gpu.sh stage|run" >&2; exit 2 ;;
esac
