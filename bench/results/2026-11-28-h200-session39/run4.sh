#!/usr/bin/env bash
# Session 39, run 4: logits parity with transformers (every architecture, CPU and CUDA, f32 and bf16) with the
# final library: GPT-2's layer_norm in bf16 changed this session.
set -u
cd "$(dirname "$0")/.."
mkdir -p .device/bin
xz -dc .device/new/tessera.xz > .device/bin/tessera; chmod +x .device/bin/tessera
nvidia-smi -L
PYTHONUNBUFFERED=1 timeout 280 python3 scripts/model/parity.py --tessera .device/bin/tessera --devices cpu,cuda \
  --dtypes f32,bf16 --embedded models/tessera-tiny --timeout 60 --out $OUT/parity 2>&1 | tail -n 45
