#!/usr/bin/env bash
# Session 64, run 4: build s64c (what lands: TileSchedule::at in 32 bits where the schedule has fewer than 2^31
# items; fmha splits its item numbers itself again, through the runs iterator's index()). The GPU tests of every
# kernel on a persistent schedule: attention, the matmul family, the staged pipeline, the engine.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s64c/tessera_gpu_tests.xz > $B/tests; chmod +x $B/tests
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run4; mkdir -p $R
timeout 500 $B/tests --gtest_filter='AttentionGpu.*:MatmulGpu.*:BmmGpu.*:GroupGemmGpu.*:MatmulFp8Gpu.*:TileStagedGpu.*:TileParityGpu.*:EngineGpu.*:AutotuneGpu.*' > $R/tests.log 2>&1
echo "tests rc $?"; grep -E "^\[  (PASSED|FAILED) |Failure|tests? from .* ms total" $R/tests.log | head -n 24
date +%T
