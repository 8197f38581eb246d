#!/usr/bin/env bash
# The main command: builds tessera, shows what this machine offers, checks every op on every available backend
# against its reference, and generates text with the embedded model (models/tessera-tiny) on the GPU when there
# is one, else on the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh >/dev/null
./build/tessera info
./build/tessera ops list
./build/tessera ops check
if [ -f models/tessera-tiny/model.safetensors ]; then
  device=cpu
  ./build/tessera info 2>/dev/null | grep -qiE "cuda devices: [1-9]|GPU 0" && device=cuda
  echo "== tessera generate --model models/tessera-tiny --device $device"
  ./build/tessera generate --model models/tessera-tiny --prompt "${PROMPT:-In the beginning}" --max-tokens 64 \
    --temperature 0.8 --top-p 0.95 --seed 1 --device "$device"
  echo
fi
