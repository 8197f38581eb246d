#!/usr/bin/env bash
# Session 59, run 6: mla_decode's warp stall reasons (Nsight Compute raw page, B 128 x 4k), and the matmul sweep
# of issue 3 against cuBLAS with the new bench lead (s59d), twice.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s59d/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run6; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
timeout 200 ncu --kernel-name-base demangled --kernel-name regex:MlaDecode --launch-skip 3 --launch-count 1 --section WarpStateStats --section SchedulerStats --page raw \
  $B/tessera bench mla_decode --shapes mla_decode:128x4096 --quick --out /tmp/m1 > $R/ncu_mla_raw.txt 2>&1
echo "ncu rc $?"; grep -E "smsp__average_warps_issue_stalled_.*_per_issue_active|smsp__average_warp_latency_per_inst_issued" $R/ncu_mla_raw.txt | sort -k3 -n -r | head -n 14
date +%T
for r in 1 2; do
  timeout 280 $B/tessera bench matmul --out /tmp/mm > /dev/null 2>&1; echo "sweep $r rc $?"
  cp /tmp/mm/bench.md $R/matmul_sweep_$r.md
  grep -E "^\| matmul" /tmp/mm/bench.md | cut -d'|' -f3,4,11 | tr '\n' ';'; echo
done
date +%T
