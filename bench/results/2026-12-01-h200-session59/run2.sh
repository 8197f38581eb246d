#!/usr/bin/env bash
# Session 59, run 2 (main's build): Nsight Compute on mla_decode (B 64 x 4k) and on prefill fmha at 16 x 16 x 1k x 128
# (the persistent bn128_s6 form the tuner picks), full sets, one launch each.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s59a/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run2; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
timeout 200 ncu --kernel-name-base demangled --kernel-name regex:MlaDecode --launch-skip 3 --launch-count 1 --set full --import-source no \
  $B/tessera bench mla_decode --shapes mla_decode:64x4096 --quick --out /tmp/m1 > $R/ncu_mla.txt 2>&1
echo "ncu mla rc $?"
TESSERA_AUTOTUNE_FORCE=fmha:bn128_s6_persistent timeout 200 ncu --kernel-name-base demangled --kernel-name regex:FmhaStaged --launch-skip 3 --launch-count 1 --set full --import-source no \
  $B/tessera bench fmha --shapes 16x16x1024x128 --quick --out /tmp/f1 > $R/ncu_fmha1k.txt 2>&1
echo "ncu fmha rc $?"
for f in $R/ncu_*.txt; do echo "== $f"; grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|Warp Cycles Per Issued|Executed Ipc Active|Stall|L2 Hit|Tensor" $f | head -n 40; done
date +%T
