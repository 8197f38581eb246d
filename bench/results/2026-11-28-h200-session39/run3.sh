#!/usr/bin/env bash
# Session 39, run 3: the generic matmul (unaligned K) with the binaries of run 2, new then old, full tables.
set -u
cd "$(dirname "$0")"
mkdir -p bin
for f in old/tessera new/tessera; do xz -dc $f.xz > bin/$(echo $f | tr / _); chmod +x bin/$(echo $f | tr / _); done
export TESSERA_CACHE_DIR=/tmp/tc
nvidia-smi -L
S=4096x4096x4095,2048x2048x2047,1024x1024x1023,128x4096x4095
for b in new old; do for dt in bf16 f16; do
  echo "== $b $dt"; timeout 100 ./bin/${b}_tessera bench matmul --shapes $S --dtype $dt --out /tmp/o_${b}_$dt 2>&1 | sed -n '/^op /,$p' | tail -n 6
  cp /tmp/o_${b}_$dt/bench.md $OUT/generic_matmul_${b}_$dt.md
done; done
