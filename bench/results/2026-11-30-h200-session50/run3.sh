#!/usr/bin/env bash
# Session 50, run 3: what decode attention's early producer adds on top of the early weight tiles (run 2's build,
# aa9dcf3), per decode configuration: batch 1, prompt 2048, TESSERA_DECODE_EARLY_START 0 and 1 alternated, the
# tuner's choice and three forced configurations; the tuner's cache is printed.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s50b/tessera.xz > $B/tessera; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
export TESSERA_CACHE_DIR=/tmp/tc; rm -rf /tmp/tc; mkdir -p /tmp/tc
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1"
step() {  # label, then flags
  local label=$1; shift
  timeout 150 $M "$@" > /tmp/bm.log 2>&1
  echo "$label rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "%s ms a step, %s tok/s", $6, $5}')"
  cat /tmp/bm.log >> $OUT/run3_bench_model.log
}
step warm --decode-steps 8
grep -rho '"fmha_decode[^}]*}' /tmp/tc | head -5; grep -rl fmha_decode /tmp/tc | head -2 | xargs -r cat | tr ',' '\n' | grep -A3 -i "fmha_decode" | head -20
for round in 1 2 3; do
  TESSERA_DECODE_EARLY_START=0 step "tuned attention-early off"
  TESSERA_DECODE_EARLY_START=1 step "tuned attention-early on "
done
for cfg in bn64_s4 bn32_s6_x2 sliced_bn64_s3_x2_short; do
  for round in 1 2; do
    TESSERA_AUTOTUNE_FORCE=fmha_decode:$cfg TESSERA_DECODE_EARLY_START=0 step "$cfg off"
    TESSERA_AUTOTUNE_FORCE=fmha_decode:$cfg TESSERA_DECODE_EARLY_START=1 step "$cfg on "
  done
done
date +%T
