#!/bin/bash
# session 29 run 25: the sliced decode kernel inside the b1 step (warm caches, clocks as they run): full
# Nsight Compute sections and per-instruction SASS counts and stall samples.
export PATH=$PATH:/usr/local/cuda/bin
mkdir -p /tmp/b $OUT/r25
xz -dc .device/bin/tessera.xz > /tmp/b/tessera; chmod +x /tmp/b/tessera
args="bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --prompt-len 2048 --batch 1 --decode-steps 8 --cuda-graph"
export TESSERA_AUTOTUNE_FORCE=fmha_decode:sliced_bn64_s3_x2 XDG_CACHE_HOME=/tmp/cache_s
timeout 150 ncu --cache-control none --clock-control none --kernel-name-base demangled -k regex:FmhaDecodeSliced --launch-skip 300 --launch-count 1 --set full /tmp/b/tessera $args > $OUT/r25/full.txt 2>&1
grep -E "Duration|Elapsed Cycles|SM Active Cycles|Registers|Achieved Occupancy|Executed Instructions |Warp Cycles Per Issued|No Eligible|Stall|Theoretical Occ" $OUT/r25/full.txt | head -30
timeout 150 ncu --cache-control none --clock-control none --kernel-name-base demangled -k regex:FmhaDecodeSliced --launch-skip 300 --launch-count 1 --section SourceCounters --section WarpStateStats --page source --print-source sass --csv /tmp/b/tessera $args > $OUT/r25/sass.csv 2>&1
wc -l $OUT/r25/sass.csv; head -3 $OUT/r25/sass.csv | cut -c1-600
