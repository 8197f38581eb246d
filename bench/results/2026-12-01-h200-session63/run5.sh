#!/usr/bin/env bash
# Session 63, run 5: Nsight Compute on the landed build (s63b), the overlapped persistent configuration forced,
# 16 x 16 x 1k x 128 causal against non-causal: instructions, tensor-pipe use and stalls, to see what a causal
# item costs beyond its key tiles.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s63b/libtessera.so.xz > $B/libtessera.so
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run5; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_r5; rm -rf /tmp/tc_r5
export TESSERA_AUTOTUNE_FORCE=fmha:bn128_s5_overlap_persistent
P="python3 bench/profile_fmha.py --lib $B/libtessera.so"
M=sm__inst_executed.sum,smsp__inst_executed_op_mufu.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed.avg.per_cycle_active,sm__cycles_active.avg,sm__cycles_elapsed.avg,gpu__time_duration.sum
for c in "" "--causal"; do
  f=$R/ncu_1k$c.txt
  timeout 120 ncu --kernel-name-base demangled --kernel-name regex:FmhaStaged --launch-skip 0 --launch-count 1 --section WarpStateStats --metrics $M --page raw \
    $P 16 16 1024 128 $c --once > $f 2>&1
  echo "== ncu 1k $c rc $?"
  grep -E "pipe_|inst_executed|gpu__time|op_mufu|cycles_" $f | grep -v "^ *$" | head -n 14
  grep -E "smsp__average_warps_issue_stalled_.*_per_issue_active" $f | sort -k3 -g -r | head -n 8
done
date +%T
