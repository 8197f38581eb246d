#!/usr/bin/env bash
# Session 65, run 5: the attention backward against SDPA's (cuDNN and flash backward) with build s65b, after
# fixing gpu_bench.py's backward rows (run 1 stopped at a name clash: `dv`, the value gradient, read as the
# value head dim since session 59).
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s65b/libtessera.so.xz > $B/libnew.so
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run5; mkdir -p $R
timeout 300 python3 bench/gpu_bench.py --lib $B/libnew.so --backward-only --out $R > $R/backward.txt 2>&1
echo "rc $?"; grep -E "backward|Error|rror" $R/backward.txt | grep -v Warning | tail -n 12
date +%T
