#!/usr/bin/env bash
# Session 57, run 3: the deferred RMSNorm (RowRms / RmsStatistics in tessera/ops/matmul.h), build s57c of this
# session's working tree (both architectures). The GPU tests of what changed; the engine at batch 1 with the norms
# deferred (default) and as kernels (TESSERA_DEFERRED_NORMS=0), alternated, one tuner cache; batch 8 (not deferred:
# one token a step only) once; logits parity with transformers both ways.
set -u
cd "$(dirname "$0")"
HERE=$PWD
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s57c/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
cd ../../..
rm -rf /tmp/tc_t
TESSERA_CACHE_DIR=/tmp/tc_t timeout 300 $B/tessera_gpu_tests --gtest_brief=1 \
  --gtest_filter='MatmulGpu.Deferred*:MatmulGpu.EveryFewRows*:MatmulGpu.FewRowsWithSettled*:MatmulGpu.SiluAndMul*:MatmulGpu.MatchesReference:AttentionGpu.QkvRope*:TileOpsGpu.*:Engine*' \
  > $OUT/run3_gpu_tests.log 2>&1
echo "gpu tests rc $?"; grep -E "FAILED|PASSED|SKIPPED|tests ran|Failure" $OUT/run3_gpu_tests.log | head -n 30
date +%T
M="$B/tessera bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda --dtype bf16 --cuda-graph"
export TESSERA_CACHE_DIR=/tmp/tc3; rm -rf /tmp/tc3
timeout 150 $M --batch 1 --decode-steps 16 > /dev/null 2>&1
TESSERA_DEFERRED_NORMS=0 timeout 150 $M --batch 1 --decode-steps 16 > /dev/null 2>&1
for r in 1 2 3 4; do
  for mode in deferred kernels; do
    if [ $mode = kernels ]; then export TESSERA_DEFERRED_NORMS=0; else unset TESSERA_DEFERRED_NORMS; fi
    timeout 100 $M --batch 1 --decode-steps 64 2>/dev/null | grep -E '^[0-9]+ +[0-9]+ ' | awk -v c="$mode" '{printf "%s %s ms; ", c, $6}'
  done
  echo
done
unset TESSERA_DEFERRED_NORMS
timeout 150 $M --batch 1,8 --decode-steps 64 2>&1 | tail -n 6
python3 -c "
import json; d=json.load(open('/tmp/tc3/autotune.json')); d=d.get('entries',d)
for k,v in d.items():
  if 'rmsnorm' in k or 'rms_rows' in k: print(k, v.get('choice'))"
date +%T
for mode in deferred kernels; do
  if [ $mode = kernels ]; then export TESSERA_DEFERRED_NORMS=0; else unset TESSERA_DEFERRED_NORMS; fi
  PYTHONUNBUFFERED=1 timeout 200 python3 scripts/model/parity.py --tessera $B/tessera --devices cpu,cuda \
    --dtypes bf16 --embedded models/tessera-tiny --timeout 60 --out /tmp/parity_$mode > $OUT/run3_parity_$mode.log 2>&1
  echo "parity $mode rc $?"; grep -E "^\| .* bf16 " $OUT/run3_parity_$mode.log | awk -F'|' '{printf "%s %s %s %s %s\n", $2, $3, $5, $6, $7}'
done
date +%T
