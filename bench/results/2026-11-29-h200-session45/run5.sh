#!/usr/bin/env bash
# Session 45, run 5: where a batch-1 decode step's time goes, kernel by kernel. Nsight Compute times every
# kernel of an eager run (serialised, each alone: no dependent-launch overlap) at the GPU's own clocks, after a
# plain run has filled the tuner's cache (so no tuning runs under the profiler). Main's code (the experiment
# binary of run 4 with TESSERA_L2_PREFETCH=0: the prefetch code path is off).
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc s45/tessera_new.xz > bin/tessera; chmod +x bin/*
nvidia-smi -L; date +%T
cd ..
export TESSERA_L2_PREFETCH=0 TESSERA_CACHE_DIR=/tmp/tc
M="./.device/bin/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --batch 1"
timeout 120 $M --decode-steps 8 > $OUT/run5_plain.log 2>&1; echo "plain rc $?"; grep -E "^1 " $OUT/run5_plain.log
timeout 120 $M --decode-steps 8 --cuda-graph > $OUT/run5_plain_graph.log 2>&1; echo "plain graph rc $?"; grep -E "^1 " $OUT/run5_plain_graph.log
date +%T
timeout 480 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum --csv $M --decode-steps 2 --prompt-len 2048 > /tmp/ncu.csv 2> $OUT/run5_ncu_stderr.log; echo "ncu rc $?"
wc -l /tmp/ncu.csv; xz -c /tmp/ncu.csv > $OUT/run5_ncu.csv.xz; ls -la $OUT
date +%T
