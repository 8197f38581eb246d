#!/usr/bin/env bash
# Session 61, run 3: build s61d (the tree that lands: the solo kernel, the shared-left-operand product in
# wgmma.h that both column-share products now use): the whole GPU suite, then mla_decode twice.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s61d/tessera_gpu_tests.xz > $B/tests; chmod +x $B/tests
xz -dc ../../../.device/s61d/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run3; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
timeout 430 $B/tests --gtest_brief=1 > $R/gpu_suite.log 2>&1
echo "suite rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure" $R/gpu_suite.log | head -n 20
MLA=mla_decode:64x4096,mla_decode:128x4096,mla_decode:64x8192,mla_decode:128x8192,mla_decode:64x32768,mla_decode:1x32768
for round in 1 2; do
  timeout 60 $B/tessera bench mla_decode --shapes $MLA --out /tmp/x > /dev/null 2>&1; echo "mla round $round rc $?"
  grep -E "^\| mla" /tmp/x/bench.md | cut -d'|' -f4,5 | tr -s ' ' | tr '\n' ';'; echo
  cp /tmp/x/bench.md $R/bench_$round.md
done
timeout 150 ncu --kernel-name-base demangled --kernel-name regex:MlaDecode --launch-skip 3 --launch-count 1 --section WarpStateStats --section ComputeWorkloadAnalysis --section SpeedOfLight --page raw \
  $B/tessera bench mla_decode --shapes mla_decode:128x4096 --quick --out /tmp/m1 > $R/ncu_mla_raw.txt 2>&1
echo "ncu rc $?"; grep -E "smsp__average_warps_issue_stalled_.*_per_issue_active|smsp__average_warp_latency_per_inst_issued" $R/ncu_mla_raw.txt | sort -k3 -n -r | head -n 10
grep -E "pipe_tensor.*pct|gpu__time_duration.sum|sm__throughput.avg.pct" $R/ncu_mla_raw.txt | head -n 12
date +%T
