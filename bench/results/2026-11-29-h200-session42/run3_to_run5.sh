#!/usr/bin/env bash
# Session 42, runs 3 and 4: bench/probes/mma_sync_ceiling.cu (built as its header says) on the H200.
./.device/mma_sync_ceiling 2>&1 | tee $OUT/run4_mma_sync_ceiling.log

# Run 5: build-sm80/examples/example_06_matmul_staged_cuda carried as .device/example_06_sm80
./.device/example_06_sm80; ./.device/example_06_sm80 1000 520 136
