#!/usr/bin/env bash
# Session 67, run 9: an EXPERIMENT build (s67x, branch exp67-lanes; the diff experiment_lanes.diff): decode
# attention whose producer warp's 32 lanes copy K and V with cp.async (completing on the stage barriers, the
# consumers fencing the async proxy) instead of the copy engine: configurations lanes_bn64_s3_x2, lanes_bn64_s4,
# lanes_bn32_s6_x2. Correctness against a plain reference, then each forced configuration against its
# copy-engine twin, alternated, 16-token pages, and cuDNN.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s67x/libtessera.so.xz > $B/libexp.so || exit 1
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run9; mkdir -p $R
{
for cfg in bn64_s3_x2 lanes_bn64_s3_x2 lanes_bn32_s6_x2 lanes_bn64_s4; do
  echo "$cfg: $(TESSERA_AUTOTUNE_FORCE=fmha_decode:$cfg TESSERA_CACHE_DIR=/tmp/tc9c timeout 25 python3 bench/results/2026-12-02-h200-session67/run9_check.py $B/libexp.so 1 2>&1 | tail -n 1)"
done
} | tee $R/check.txt
grep -q WRONG $R/check.txt && exit 0
grep -c "ok)" $R/check.txt | grep -q 4 || exit 0
date +%T
{
for shape in "32 4096" "64 8192"; do
  for cfg in bn64_s3_x2 lanes_bn64_s3_x2 bn32_s6_x2 lanes_bn32_s6_x2; do
    echo "$cfg $shape: $(TESSERA_AUTOTUNE_FORCE=fmha_decode:$cfg TESSERA_CACHE_DIR=/tmp/tc9 timeout 40 python3 bench/profile_decode.py --lib $B/libexp.so $shape 2>&1 | tail -n 1)"
  done
done
echo "cuDNN: $(TESSERA_CACHE_DIR=/tmp/tc9t timeout 60 python3 bench/profile_decode.py --lib $B/libexp.so --sdpa 64 8192 2>&1 | tail -n 2 | tr '\n' ' ')"
} | tee $R/timings.txt
date +%T
