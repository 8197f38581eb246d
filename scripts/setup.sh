#!/usr/bin/env bash
# Installs what tessera builds with, from Debian's packages; does nothing when all are present.
set -euo pipefail
packages=(cmake make g++ libgtest-dev nlohmann-json3-dev libcli11-dev libpcre2-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# Node.js (for the tokenizer parity test) may come from another source that bundles npm and conflicts with
# Debian's npm package: ask for the commands, not the packages.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: nvcc $( (nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version) | grep -o 'release [0-9.]*')"
else
  echo "setup: no nvcc: the CUDA backend will not be built"
fi
