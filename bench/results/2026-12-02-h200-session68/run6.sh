#!/usr/bin/env bash
# Session 68, run 6 (one command, as sent to the device): the tuner's choices for decode attention with the
# landing build s68d, a fresh cache, the four run-5 shapes (run 5's own listing of them failed: wrong JSON path).
B=/tmp/bin; mkdir -p $B; xz -dc .device/s68d/libtessera.so.xz > $B/libtessera.so; mkdir -p $OUT/run6
for shape in "32 4096" "64 8192" "8 8192" "1 32768"; do
  TESSERA_CACHE_DIR=/tmp/tc6b timeout 60 python3 bench/profile_decode.py --lib $B/libtessera.so $shape 2>&1 | tail -n 1
done > $OUT/run6/timings.txt
cp /tmp/tc6b/autotune.json $OUT/run6/; cat $OUT/run6/timings.txt
