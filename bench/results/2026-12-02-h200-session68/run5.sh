#!/usr/bin/env bash
# Session 68, run 5: the build to land (s68d, main 6d0ab65: CopiedByThreads pipelines, load_row_boxes_by_threads,
# decode attention's *_threads candidates). Decode attention against cuDNN (PyTorch SDPA on a contiguous copy) in
# the same process, 16-token pages, the tuner choosing (its choices printed); mla_decode; then the whole GPU test
# suite (RowBoxes gains two thread-copy configurations; EveryStagedDecodeConfiguration covers the new candidates).
set -u
cd "$(dirname "$0")/../../.."
B=/tmp/bin; mkdir -p $B
xz -dc .device/s68d/libtessera.so.xz > $B/libtessera.so || exit 1
xz -dc .device/s68d/tessera_gpu_tests.xz > $B/tessera_gpu_tests || exit 1; chmod +x $B/tessera_gpu_tests
nvidia-smi -L; date +%T
R=$OUT/run5; mkdir -p $R
for round in 1 2; do
  for shape in "32 4096" "64 8192" "8 8192" "1 32768"; do
    echo "r$round $shape: $(TESSERA_CACHE_DIR=/tmp/tc_p timeout 90 python3 bench/profile_decode.py --lib $B/libtessera.so --sdpa $shape 2>&1 | tail -n 2 | tr '\n' ' ')"
  done
done | sed -e 's/ (16-token pages, token-major)//; s/, host [0-9.]* us per call//' | tee $R/decode_vs_cudnn.txt
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print(k, "->", v["choice"], {n: round(t, 1) for n, t in sorted(v["timings"].items(), key=lambda x: x[1])[:5]}) for k, v in d.items() if "decode" in k]' /tmp/tc_p/autotune.json | tee $R/choices.txt
date +%T
for heads in 16 128; do
  echo "mla $heads heads 64 8192: $(TESSERA_CACHE_DIR=/tmp/tc_p timeout 60 python3 bench/profile_mla.py --lib $B/libtessera.so --heads $heads 64 8192 2>&1 | tail -n 1)"
done | tee $R/mla.txt
date +%T
TESSERA_CACHE_DIR=/tmp/tc_tests timeout 400 $B/tessera_gpu_tests --gtest_brief=1 > $R/gpu_suite.log 2>&1
echo "gpu suite rc $?"; tail -n 4 $R/gpu_suite.log; grep -E "FAILED|Failure" $R/gpu_suite.log | head -20
date +%T
