#!/usr/bin/env bash
# Session 45, run 9: section 4's decode attention configurations timed alone by `tessera bench fmha_decode`
# (B 1, 2112 keys, GQA 32/8, D 128), forced, alternated.
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc s45/tessera_new.xz > bin/tessera; chmod +x bin/*
nvidia-smi -L; date +%T
export TESSERA_CACHE_DIR=/tmp/tc
for round in 1 2 3; do
  for c in bn64_s3_x2_short bn32_s6_x2_short sliced_bn64_s3_x2_short; do
    rm -rf /tmp/o; TESSERA_AUTOTUNE_FORCE=fmha_decode:$c timeout 60 ./bin/tessera bench fmha_decode --shapes fmha_decode:1x2112x32x8x128,fmha_decode:4x2112x32x8x128 --out /tmp/o > /tmp/b.log 2>&1
    echo "== $c round $round rc $?"; grep -E "fmha_decode" /tmp/b.log | grep -v "^bench" | head -4
  done
done
cat /tmp/o/bench.md | head -20
date +%T
