#!/usr/bin/env bash
# Session 52, run 3 (experiment build s52c, experiment_read_once_parts.diff): the copy engine's loads of the
# swap-AB kernel's weights and of decode attention's K/V tiles with an L2 evict-first policy (ReadOnce), and
# the one-row kernels' weight loads compiled two ways, picked by TESSERA_EXPERIMENT_HINT: 3 (run 1's
# ld.global.nc.L1::no_allocate with the L2 evict-first policy) or 1 (the same without the L2 policy).
# Against run 1's build (s52a: the one-row kernels' mode 3, the copy engine's loads unhinted), alternated,
# each with a tuner cache of its own; Llama-3.1-8B shapes, random weights.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s52c/tessera.xz > $B/tessera
xz -dc ../../../.device/s52a/tessera.xz > $B/tessera_a; chmod +x $B/*
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc_* /tmp/mm_*
run_as() {  # a, c1 or c3, then the command's arguments
  local v=$1; shift
  mkdir -p /tmp/tc_$v
  case $v in
    a) TESSERA_CACHE_DIR=/tmp/tc_a $B/tessera_a "$@" ;;
    c1) TESSERA_EXPERIMENT_HINT=1 TESSERA_CACHE_DIR=/tmp/tc_c1 $B/tessera "$@" ;;
    c3) TESSERA_EXPERIMENT_HINT=3 TESSERA_CACHE_DIR=/tmp/tc_c3 $B/tessera "$@" ;;
  esac
}
for v in a c3 c1; do
  run_as $v bench matmul --dtype bf16 --shapes 1x4096x4096,1x14336x4096,1x4096x14336,1x128256x4096,4x4096x4096,8x14336x4096,16x4096x14336,32x6144x4096,64x28672x4096 \
    --out /tmp/mm_$v > /tmp/mm.log 2>&1
  echo "matmul $v rc $?"; grep -E "^\| matmul" /tmp/mm_$v/bench.md | awk -F'|' '{printf "%s %s;", $3, $4} END {print ""}'
  cp /tmp/mm_$v/bench.md $OUT/run3_matmul_$v.md 2>/dev/null
done
for v in a c3; do
  run_as $v bench fmha_decode --shapes 1x2112x32x8x128,1x32768x32x8x128,8x2112x32x8x128,32x4096x32x8x128 --out /tmp/fd_$v > /tmp/fd.log 2>&1
  echo "fmha_decode $v rc $?"; grep -E "^\| fmha_decode" /tmp/fd_$v/bench.md | awk -F'|' '{printf "%s %s;", $3, $4} END {print ""}'
done
step() {  # variant, label, then flags
  local v=$1 label=$2; shift 2
  run_as $v bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph "$@" > /tmp/bm.log 2>&1
  echo "$v $label rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms; ", $1, $6}')"
  cat /tmp/bm.log >> $OUT/run3_bench_model_$v.log
}
for v in a c3 c1; do step $v warm --batch 1,2,8 --decode-steps 8; done
for round in 1 2 3 4; do
  for v in a c3 c1; do step $v "b1 2k" --batch 1; done
done
for round in 1 2; do
  for v in a c3 c1; do step $v "b2,4,8" --batch 2,4,8; done
done
for v in a c3; do step $v "b32" --batch 32; done
for v in a c3; do step $v "b1 32k" --batch 1 --prompt-len 32768 --decode-steps 32; done
date +%T
