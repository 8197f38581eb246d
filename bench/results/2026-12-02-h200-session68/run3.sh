#!/usr/bin/env bash
# Session 68, run 3: run 1 with copies whose addresses cost a few instructions each (run 2: ~40 a copy made the producer issue-bound). decode attention whose producer copies K and V with cp.async (branch exp68), each form
# checked against a plain fp32 reference, then timed against the copy engine (bn64_s3_x2) and cuDNN.
#   lanes: 32 copiers, arrive on copies, consumers fence the async proxy (session 67's run 9 form)
#   lanes_nofence: the same without the consumers' fence;  lanes_pfence: the copiers fence one stage behind
#   wg_*: the producer warpgroup's 128 threads copy
set -u
cd "$(dirname "$0")/../../.."
B=/tmp/bin; mkdir -p $B
xz -dc .device/s68b/libtessera.so.xz > $B/libexp.so || exit 1
nvidia-smi -L; date +%T
R=$OUT/run3; mkdir -p $R
CHECK=bench/results/2026-12-02-h200-session67/run9_check.py
CFGS="bn64_s3_x2 lanes_bn64_s3_x2 lanes_nofence_bn64_s3_x2 lanes_pfence_bn64_s3_x2 wg_nofence_bn64_s3_x2 wg_pfence_bn64_s3_x2 wg_nofence_bn64_s4 lanes_nofence_bn32_s6_x2"
for cfg in $CFGS; do
  echo "$cfg: $(TESSERA_AUTOTUNE_FORCE=fmha_decode:$cfg TESSERA_CACHE_DIR=/tmp/tc1c timeout 25 python3 $CHECK $B/libexp.so 3 2>&1 | tail -n 1)"
done | tee $R/check.txt
for shape in "32 4096" "64 8192"; do
  echo "sdpa $shape: $(TESSERA_AUTOTUNE_FORCE=fmha_decode:bn64_s3_x2 TESSERA_CACHE_DIR=/tmp/tc1 timeout 40 python3 bench/profile_decode.py --lib $B/libexp.so --sdpa $shape 2>&1 | tail -n 3 | tr '\n' ' ')"
  for cfg in $CFGS; do
    grep -q "^$cfg: .*ok)" $R/check.txt || continue
    echo "$cfg $shape: $(TESSERA_AUTOTUNE_FORCE=fmha_decode:$cfg TESSERA_CACHE_DIR=/tmp/tc1 timeout 30 python3 bench/profile_decode.py --lib $B/libexp.so $shape 2>&1 | tail -n 1)"
  done
done | tee $R/timings.txt
date +%T
