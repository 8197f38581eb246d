#!/usr/bin/env bash
# Session 42, runs 3 and 4: bench/probes/mma_sync_ceiling.cu (built as its header says) on the H200.
./.device/mma_sync_ceiling 2>&1 | tee $OUT/run4_mma_sync_ceiling.log
