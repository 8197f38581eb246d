#!/usr/bin/env bash
# The test command: installs build dependencies, builds (with CUDA when nvcc is present), runs every test.
# GPU tests report "skipped: no GPU" on a machine without one. With CI=true (or SANITIZE=1) the host tests
# also run in a second build under AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
start=$(date +%s)
(cd build && ctest --output-on-failure -j "$(nproc)")
echo "tests: $(( $(date +%s) - start )) s"
if [ "${CI:-}" = true ] || [ "${SANITIZE:-0}" = 1 ]; then
  BUILD_DIR=build-asan bash scripts/build.sh -DTESSERA_CUDA=OFF -DTESSERA_SANITIZE=ON
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -L host -j "$(nproc)")
fi
