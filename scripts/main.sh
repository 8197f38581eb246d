#!/usr/bin/env bash
# The main command: builds tessera, shows what this machine offers, and checks every op on every
# available backend against its reference.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh >/dev/null
./build/tessera info
./build/tessera ops list
./build/tessera ops check
