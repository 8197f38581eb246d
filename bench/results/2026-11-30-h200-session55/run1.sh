#!/usr/bin/env bash
# Session 55, run 1: is a kernel's code cold in a decode step? An experiment build (s55x: e312bbe with
# experiment_extra.diff): TESSERA_LEAVE_OUT=op skips the op in every layer (its cost, code and data cold);
# TESSERA_EXTRA=op runs it once more before the real call on the next layer's cache or weights (the real call
# then finds its code warm, its data cold). Batch 1, prompt 2048, graphs, Llama-3.1-8B shapes. Also the size of
# each kernel's machine code (cuobjdump).
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s55x/tessera.xz > $B/tessera; chmod +x $B/*
nvidia-smi -L; date +%T
(cuobjdump -sass -arch sm_90a $B/tessera 2>/dev/null | awk '/Function :/{name=$3} /^ +\/\*[0-9a-f]{4}\*\//{n[name]++} END{for(k in n) print n[k], k}' | sort -rn > $OUT/kernel_instructions.txt) &  # (capped at 4096 by the 4-hex-digit pattern: not used)
cd ../../..
rm -rf /tmp/tc; mkdir -p /tmp/tc
export TESSERA_CACHE_DIR=/tmp/tc
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph --batch 1"
timeout 150 $M --decode-steps 16 > /dev/null 2>&1
for round in 1 2 3; do
  for mode in none LEAVE_OUT=attention EXTRA=attention LEAVE_OUT=o EXTRA=o LEAVE_OUT=down EXTRA=down EXTRA=norm EXTRA=attention,o,down,norm; do
    env TESSERA_$mode timeout 150 $M --decode-steps 64 > /tmp/bm.log 2>&1
    echo "$mode rc $? $(grep -E '^[0-9]+ +[0-9]+ ' /tmp/bm.log | awk '{printf "batch %s: %s ms; ", $1, $6}')"
    cat /tmp/bm.log >> $OUT/run1_bench_model.log
  done
done
date +%T
wait
head -n 60 $OUT/kernel_instructions.txt | cut -c1-230
grep -c . $OUT/kernel_instructions.txt
python3 - $OUT/kernel_instructions.txt <<'PY'
import sys
for key in ["FmhaDecodeSliced", "FmhaDecodeStaged", "DecodeMerge", "MatmulFewRows", "QkvRope", "RmsNorm", "Embedding", "Argmax"]:
    rows = [l.split(None, 1) for l in open(sys.argv[1]) if key in l]
    if rows: print(key, len(rows), "kernels, instructions min/max", min(int(r[0]) for r in rows), max(int(r[0]) for r in rows))
PY
