#!/usr/bin/env bash
# Session 68, run 2: where the cp.async producer's time goes (run 1: 32 copiers read at 1.39 TB/s whether or not
# anyone fences; 128 copiers at 2.8 TB/s; the copy engine at 3.97). Nsight Compute's per-instruction page of
# lanes_nofence_bn64_s3_x2 at B 32 x 4k (contiguous cache), with its stall reasons.
set -u
cd "$(dirname "$0")/../../.."
B=/tmp/bin; mkdir -p $B
xz -dc .device/s68a/libtessera.so.xz > $B/libexp.so || exit 1
nvidia-smi -L; date +%T
R=$OUT/run2; mkdir -p $R
for cfg in bn64_s3_x2 lanes_nofence_bn64_s3_x2; do
  echo "$cfg contiguous: $(TESSERA_AUTOTUNE_FORCE=fmha_decode:$cfg TESSERA_CACHE_DIR=/tmp/tc2 timeout 30 python3 bench/profile_decode.py --lib $B/libexp.so --contiguous 32 4096 2>&1 | tail -n 1)"
done | tee $R/timings.txt
TESSERA_AUTOTUNE_FORCE=fmha_decode:lanes_nofence_bn64_s3_x2 TESSERA_CACHE_DIR=/tmp/tc2n timeout 300 ncu --profile-from-start off \
  --kernel-name-base mangled -k regex:FmhaDecodeStaged -c 1 --set full --import-source no \
  -o /tmp/lanes python3 bench/results/2026-12-02-h200-session66/run3_decode_ncu.py $B/libexp.so 32 4096 > $R/ncu.log 2>&1
echo "ncu rc $?"; tail -n 3 $R/ncu.log
ncu -i /tmp/lanes.ncu-rep --page source --csv --print-source sass > /tmp/lanes.csv 2>&1
echo "csv rc $? $(wc -l < /tmp/lanes.csv) lines"
python3 bench/ncu_source_summary.py /tmp/lanes.csv --warps 1280 --stalls > $R/summary.txt 2>&1; echo "summary rc $?"
head -c 15000000 /tmp/lanes.csv | xz -9 > $R/sass.csv.xz
ncu -i /tmp/lanes.ncu-rep --page details > $R/details.txt 2>&1
which cuobjdump; date +%T
