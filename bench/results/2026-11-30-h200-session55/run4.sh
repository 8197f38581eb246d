#!/usr/bin/env bash
# Session 55, run 4: decode attention reads a tile's block table entries at once in fmha_decode too (one form,
# no TableReads; build s55t) against the build before it (s55c, box by box for fmha_decode): the GPU suite of
# s55t (`run4.sh tests`: the GPU suite and s55t's binary carried), then (`run4.sh ab`: both command lines carried)
# the engine's paged decode steps alternated, and the decode benches.
set -u
MODE=${1:-ab}
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
nvidia-smi -L; date +%T
if [ "$MODE" = tests ]; then
  xz -dc ../../../.device/s55t/tessera_gpu_tests.xz > $B/tessera_gpu_tests; chmod +x $B/*
  cd ../../..
  export TESSERA_CACHE_DIR=/tmp/tc4; rm -rf /tmp/tc4
  timeout 400 $B/tessera_gpu_tests --gtest_brief=1 > $OUT/gpu_tests.log 2>&1; echo "gpu tests rc $?"
  grep -E "FAILED|PASSED|SKIPPED|tests ran" $OUT/gpu_tests.log | tail -n 12
  date +%T
  exit 0
fi
for b in s55c s55t; do xz -dc ../../../.device/$b/tessera.xz > $B/tessera_$b; done
chmod +x $B/*
cd ../../..
M="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
for b in s55c s55t; do TESSERA_CACHE_DIR=/tmp/tc_$b timeout 150 $B/tessera_$b $M --batch 1 --decode-steps 16 > /dev/null 2>&1; done
for r in 1 2 3 4; do
  for b in s55c s55t; do
    TESSERA_CACHE_DIR=/tmp/tc_$b timeout 150 $B/tessera_$b $M --batch 1,8 --decode-steps 64 2>/dev/null | grep -E '^[0-9]+ +[0-9]+ ' | awk -v b=$b '{printf "%s batch %s: %s ms; ", b, $1, $6} END {print ""}'
  done
done
for b in s55c s55t; do
  TESSERA_CACHE_DIR=/tmp/tc_$b timeout 120 $B/tessera_$b $M --batch 1 --decode-steps 32 --prompt-len 32768 2>/dev/null | grep -E '^[0-9]+ +[0-9]+ ' | awk -v b=$b '{printf "%s after 32k: %s ms\n", b, $6}'
done
for b in s55c s55t; do
  TESSERA_CACHE_DIR=/tmp/tc_$b timeout 200 $B/tessera_$b bench mla_decode fmha_decode --dtype bf16 \
    --shapes mla_decode:1x32768,mla_decode:64x4096,mla_decode:128x8192,1x2048x32x8x128,1x32768x32x8x128 --out /tmp/fd_$b > /tmp/fd_$b.log 2>&1
  echo "decode attention $b rc $?"; grep -E "^\| (fmha_decode|mla_decode)" /tmp/fd_$b/bench.md | awk -F'|' '{printf "%s %s us;", $3, $4} END {print ""}'
  cp /tmp/fd_$b/bench.md $OUT/decode_bench_$b.md
done
date +%T
