#!/usr/bin/env bash
# Session 64, run 6: where the head dim 64 prefill kernel's warps wait, for the next session (s64c, forced to
# the tuner's choice, non-causal 8 x 16 x 2k x 64), with head dim 128 at 1k beside it: Nsight Compute's warp
# states, scheduler and pipe utilisation of one launch each.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s64c/libtessera.so.xz > $B/libtessera.so
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run6; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_r6; rm -rf /tmp/tc_r6
prof() { local name=$1 cfg=$2; shift 2
  TESSERA_AUTOTUNE_FORCE=fmha:$cfg timeout 150 ncu --kernel-name-base demangled --kernel-name regex:FmhaStaged --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats --page raw \
    python3 bench/profile_fmha.py --lib $B/libtessera.so "$@" --once > $R/$name.txt 2>&1
  echo "$name rc $?"; grep -E "gpu__time_duration.sum|smsp__issue_active.avg.pct|sm__inst_executed_pipe_.*avg.pct_of_peak_sustained_active|smsp__average_warp_latency_per_inst_issued" $R/$name.txt | head -n 24
  grep -E "smsp__average_warps_issue_stalled_.*_per_issue_active" $R/$name.txt | sort -k3 -n -r | head -n 8; }
prof d64_2k bn128_s8_overlap_persistent 8 16 2048 64
prof d128_1k bn128_s5_overlap_persistent 16 16 1024 128
date +%T
