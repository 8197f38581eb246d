#!/usr/bin/env bash
# Session 57, run 1: the ceiling of a deferred RMSNorm. A binary of main (78aec3b) with an experiment-only switch
# (TESSERA_EXPERIMENT_SKIP_NORMS, not committed) that drops every rms_norm of a decode step but layer 0's
# first: the outputs are wrong, the time is what the norms' launches cost in the step. Alternated rounds.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s57a/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
export TESSERA_CACHE_DIR=/tmp/tc1; rm -rf /tmp/tc1
for b in 1 8; do
  M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch $b"
  timeout 150 $M --decode-steps 16 > /dev/null 2>&1
  for r in 1 2 3; do
    for mode in main skip; do
      if [ $mode = skip ]; then export TESSERA_EXPERIMENT_SKIP_NORMS=1; else unset TESSERA_EXPERIMENT_SKIP_NORMS; fi
      timeout 100 $M --decode-steps 64 2>/dev/null | grep -E '^[0-9]+ +[0-9]+ ' | awk -v c="b$b $mode" '{printf "%s %s; ", c, $6}'
    done
    echo
  done
done
unset TESSERA_EXPERIMENT_SKIP_NORMS
date +%T
