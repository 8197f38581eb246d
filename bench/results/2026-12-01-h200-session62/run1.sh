#!/usr/bin/env bash
# Session 62, run 1: prefill attention where it trails cuDNN (D 128 at 1k, D 64 at 2k), main's build (s62a):
# cuDNN in the same process, every staged configuration forced, and Nsight Compute's pipe use of the tuned kernel.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s62a/libtessera.so.xz > $B/libtessera.so
xz -dc ../../../.device/s62a/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run1; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_r1; rm -rf /tmp/tc_r1
P="python3 bench/profile_fmha.py --lib $B/libtessera.so"
for s in "16 16 1024 128" "8 16 2048 64" "4 16 4096 128"; do
  for c in "" "--causal"; do timeout 60 $P $s $c --cudnn 2>&1 | tail -n 1; done
done | tee $R/tuned.txt
for cfg in bn128_s8 bn64_s12; do
  for c in "" "--causal"; do TESSERA_AUTOTUNE_FORCE=fmha:$cfg timeout 60 $P 8 16 2048 64 $c 2>&1 | tail -n 1 | sed "s/^/$cfg: /"; done
done | tee $R/forced_d64.txt
cp /tmp/tc_r1/autotune.json $R/ 2>/dev/null
M=sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed.avg.per_cycle_active,smsp__inst_executed_op_mufu.sum,sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
for s in "8 16 2048 64" "16 16 1024 128" "4 16 4096 128"; do
  f=$R/ncu_$(echo $s | tr ' ' x).txt
  timeout 100 ncu --kernel-name-base demangled --kernel-name regex:FmhaStaged --launch-skip 0 --launch-count 1 --section WarpStateStats --metrics $M --page raw \
    $P $s --once > $f 2>&1
  echo "== ncu $s rc $?"
  grep -E "pipe_|inst_executed|gpu__time|op_mufu" $f | grep -v "^ *$" | head -n 14
  grep -E "smsp__average_warps_issue_stalled_.*_per_issue_active" $f | sort -k3 -g -r | head -n 6
done
date +%T
