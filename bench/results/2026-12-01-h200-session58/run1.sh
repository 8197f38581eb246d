#!/usr/bin/env bash
# Session 58, runs 1 and 3: bench/probes/row_op_launch_shapes.cu (built as its header says, carried in .device/probe),
# twice; run 3 with the rms_norm no-residual and rope one-destination variants added.
set -u
for i in 1 2; do
  .device/probe/row_op_launch_shapes layer_norm; .device/probe/row_op_launch_shapes rms_norm
  .device/probe/row_op_launch_shapes rope
done
