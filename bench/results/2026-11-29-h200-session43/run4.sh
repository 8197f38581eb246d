#!/usr/bin/env bash
# Session 43, run 4: the engine tuned from an empty cache with the new timer (flush kernel, candidate may
# overlap it) and with main's (memset flush), alternated.
set -u
cd "$(dirname "$0")"
mkdir -p bin
for f in tessera tessera_oldtimer; do xz -dc r4/$f.xz > bin/$f; chmod +x bin/$f; done
nvidia-smi -L; date +%T
cd ..
for round in 1 2; do
  for t in tessera tessera_oldtimer; do
    echo "== $t, round $round, tuned from an empty cache"; date +%T
    rm -rf /tmp/tc_$t
    TESSERA_CACHE_DIR=/tmp/tc_$t timeout 200 ./.device/bin/$t bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --batch 1,8,32 --cuda-graph > $OUT/run4_${t}_$round.log 2>&1; echo "rc $?"
    grep -E "^[0-9]" $OUT/run4_${t}_$round.log
    cp /tmp/tc_$t/autotune.json $OUT/run4_autotune_${t}_$round.json
  done
done
date +%T
