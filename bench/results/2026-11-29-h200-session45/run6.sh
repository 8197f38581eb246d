#!/usr/bin/env bash
# Session 45, run 6 (measurements of main's code paths; the run-4 binary with TESSERA_L2_PREFETCH=0):
# the batch-1 decode step's kernels under Nsight Compute in bench-model's own configuration (64 steps, so the
# cache and the tuned attention split are the benchmark's), the step with each decode-attention configuration
# forced, and with dependent launch off.
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc s45/tessera_new.xz > bin/tessera; chmod +x bin/*
nvidia-smi -L; date +%T
cd ..
export TESSERA_L2_PREFETCH=0 TESSERA_CACHE_DIR=/tmp/tc
M="./.device/bin/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --batch 1"
timeout 120 $M --cuda-graph > $OUT/run6_tuned.log 2>&1; echo "tuned rc $? $(grep -E '^1 ' $OUT/run6_tuned.log | awk '{printf "b%s %s ms", $1, $6}')"
cp /tmp/tc/autotune.json $OUT/run6_autotune.json
for round in 1 2; do
  for c in tuned bn64_s3_x2 bn64_s3_x2_short bn32_s6_x2 bn32_s6_x2_short sliced_bn64_s3_x2 sliced_bn64_s3_x2_short bn64_s4 pdl_off; do
    case $c in tuned) E="X=1";; pdl_off) E="TESSERA_PDL=0";; *) E="TESSERA_AUTOTUNE_FORCE=fmha_decode:$c";; esac
    env $E timeout 100 $M --cuda-graph > /tmp/r.log 2>&1
    echo "$c round $round rc $? $(grep -E '^1 ' /tmp/r.log | awk '{printf "b%s %s ms", $1, $6}')"
  done
done
date +%T
# eager run: 2 prefills (~410 kernels each), 2 warm-up and 64 timed steps (~295 kernels each): the last two steps
timeout 400 ncu --clock-control none --launch-skip 19400 --launch-count 700 --metrics gpu__time_duration.sum,dram__bytes_read.sum --csv $M --decode-steps 64 > /tmp/ncu.csv 2> $OUT/run6_ncu_stderr.log; echo "ncu rc $?"
wc -l /tmp/ncu.csv; xz -c /tmp/ncu.csv > $OUT/run6_ncu.csv.xz
date +%T
