#!/usr/bin/env bash
# Session 48, run 3: the committed build (front-end checks shared: ops::overlaps, Checker::inner_dims_match and
# bias_fits; ClearForcedChoice in the library). The whole GPU suite, and the bench row that forces a choice.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
for f in tessera tessera_gpu_tests; do xz -dc ../../../.device/s48/$f.xz > $B/$f; chmod +x $B/$f; done
nvidia-smi -L; date +%T
rm -rf /tmp/tc_t; TESSERA_CACHE_DIR=/tmp/tc_t timeout 420 $B/tessera_gpu_tests --gtest_brief=1 > $OUT/run3_gpu_suite.log 2>&1
echo "gpu suite rc $?"; grep -E "FAILED|PASSED|tests ran|Failure" $OUT/run3_gpu_suite.log | head -n 30
date +%T
cd ../../..
rm -rf /tmp/tcb; TESSERA_CACHE_DIR=/tmp/tcb timeout 100 $B/tessera bench qkv_rope_append --out /tmp/bo > $OUT/run3_bench.log 2>&1
echo "bench rc $?"; cp /tmp/bo/bench.md $OUT/run3_bench.md; grep -E "^\| qkv" /tmp/bo/bench.md
date +%T
