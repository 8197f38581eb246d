#!/usr/bin/env bash
# Session 46, run 2: run 1 again with fresh caches, adding batch 32 and repeating the matmul sweep, to see
# which differences hold. TESSERA_TUNE_FLUSH=write is main's flush; read the new one.
set -u
R=/tmp/run2; rm -rf $R; mkdir -p $R
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera libtessera.so; do xz -dc ../../../.device/s46/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
cd ../../..
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
step() { grep -E '^[0-9]+ +2048' $1 | awk '{printf "b%s %s ms (prefill %s tok/s)  ", $1, $6, $4}'; }
for mode in read write; do
  rm -rf /tmp/tc_$mode; mkdir -p /tmp/tc_$mode
  TESSERA_TUNE_FLUSH=$mode TESSERA_CACHE_DIR=/tmp/tc_$mode timeout 200 $M --batch 1,8,32 > $R/run2_tune_$mode.log 2>&1
  echo "$mode tuned rc $? $(step $R/run2_tune_$mode.log)"
  cp /tmp/tc_$mode/autotune.json $R/run2_autotune_model_$mode.json
done
date +%T
for round in 1 2 3; do
  for mode in read write; do
    TESSERA_CACHE_DIR=/tmp/tc_$mode timeout 100 $M --batch 1,32 > /tmp/r.log 2>&1
    echo "$mode round $round rc $? $(step /tmp/r.log)"
  done
done
date +%T
cd bench
for round in 1 2; do
  for mode in read write; do
    rm -rf /tmp/tcs /tmp/sweep; mkdir -p /tmp/sweep
    TESSERA_TUNE_FLUSH=$mode TESSERA_CACHE_DIR=/tmp/tcs timeout 100 python3 matmul_bench.py --lib $B/libtessera.so --no-glu --out /tmp/sweep > $R/run2_sweep_${mode}_$round.log 2>&1
    echo "$mode sweep $round rc $? $(grep -i 'median' $R/run2_sweep_${mode}_$round.log | tail -1)"
    cp /tmp/sweep/matmul_bench.md $R/run2_sweep_${mode}_$round.md; cp /tmp/tcs/autotune.json $R/run2_autotune_sweep_${mode}_$round.json
  done
done
date +%T
tar cJf $OUT/run2.tar.xz -C /tmp run2
