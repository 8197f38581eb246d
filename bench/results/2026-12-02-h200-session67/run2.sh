#!/usr/bin/env bash
# Session 67, run 2: the build to land (s67b: s67a with MLA's copies box by box again, as run 1 measured): the
# whole GPU test suite (TileStagedGpu/RowBoxes new); decode attention against cuDNN (PyTorch SDPA on a contiguous
# copy) in the same process, 16-token pages, the tuner choosing; mla_decode (16 and 128 query heads).
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s67b/libtessera.so.xz > $B/libtessera.so || exit 1
xz -dc ../../../.device/s67b/tessera_gpu_tests.xz > $B/tessera_gpu_tests || exit 1; chmod +x $B/tessera_gpu_tests
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run2; mkdir -p $R
TESSERA_CACHE_DIR=/tmp/tc_tests timeout 420 $B/tessera_gpu_tests --gtest_brief=1 > $R/gpu_suite.log 2>&1
echo "gpu suite rc $?"; tail -n 4 $R/gpu_suite.log; grep -E "FAILED|Failure" $R/gpu_suite.log | head -20
date +%T
for round in 1 2; do
  for shape in "32 4096" "64 8192" "8 8192" "1 32768"; do
    echo "r$round $shape: $(TESSERA_CACHE_DIR=/tmp/tc_p timeout 90 python3 bench/profile_decode.py --lib $B/libtessera.so --sdpa $shape 2>&1 | tail -n 2 | tr '\n' ' ')"
  done
done | tee $R/decode_vs_cudnn.txt
date +%T
for heads in 16 128; do
  echo "mla $heads heads 64 8192: $(TESSERA_CACHE_DIR=/tmp/tc_p timeout 60 python3 bench/profile_mla.py --lib $B/libtessera.so --heads $heads 64 8192 2>&1 | tail -n 1)"
done | tee $R/mla.txt
date +%T
