#!/usr/bin/env bash
# Session 40, run 1: mma into fragment accumulators (cuda/fragment_mma.h) in the generic matmul: GPU suite,
# ops check, the generic matmul (odd K) and bmm against the build before, alternated.
set -u
cd "$(dirname "$0")"
mkdir -p bin
for v in base new; do xz -dc $v/tessera.xz > bin/${v}_tessera; chmod +x bin/${v}_tessera; done
nvidia-smi -L; date +%T
echo "== generic matmul and bmm, alternated"; date +%T
for round in 1 2; do
  for v in base new; do
    for dt in bf16 f16; do
      echo "-- $v $dt round $round"
      TESSERA_CACHE_DIR=/tmp/tc_$v timeout 100 ./bin/${v}_tessera bench matmul --shapes 4096x4096x4095,2048x2048x2047,1024x1024x1023,128x4096x4095,4096x4096x4096 --dtype $dt --out /tmp/o_${v}_${dt}_$round 2>&1 | sed -n '/^op /,$p' | tail -n 6
    done
    echo "-- $v bmm bf16 round $round"
    TESSERA_CACHE_DIR=/tmp/tc_$v timeout 60 ./bin/${v}_tessera bench bmm --shapes bmm:16x1024x1024x1023,bmm:64x256x256x255 --dtype bf16 --out /tmp/b_${v}_$round 2>&1 | sed -n '/^op /,$p' | tail -n 3
  done
done
cat /tmp/o_new_bf16_2/bench.md > $OUT/generic_matmul_new_bf16.md 2>/dev/null
cat /tmp/o_base_bf16_2/bench.md > $OUT/generic_matmul_base_bf16.md 2>/dev/null
echo "== f32 matmul (generic, scalar products)"
for v in base new; do TESSERA_CACHE_DIR=/tmp/tc_$v timeout 60 ./bin/${v}_tessera bench matmul --shapes 1024x1024x1024 --dtype f32 --out /tmp/f_$v 2>&1 | sed -n '/^op /,$p' | tail -n 2; done
date +%T
