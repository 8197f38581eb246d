#!/usr/bin/env bash
# Session 44, run 4: Nsight Compute on 16 x 14336 x 4096, tessera's chosen swap-AB configuration against
# cuBLAS's kernel (each in isolation: ncu serializes kernels and flushes caches between them).
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc r2/libtessera.so.xz > bin/libtessera.so
nvidia-smi -L; date +%T
cd ../bench
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats"
for cfg in swapab_bw64_bk128_wave swapab_bw128_bk64; do
  echo "== tessera $cfg"
  TESSERA_AUTOTUNE_FORCE=matmul:$cfg timeout 120 ncu $S -k regex:MatmulSwapAB -c 1 -s 2 python3 profile_matmul.py --lib ../.device/bin/libtessera.so 16 14336 4096 2>&1 | grep -vE "^==PROF==|^$" | head -150
done
echo "== cuBLAS"
cat > /tmp/cublas_one.py <<'PY'
import torch
x = torch.randn(16, 4096, dtype=torch.bfloat16, device="cuda")
w = torch.randn(14336, 4096, dtype=torch.bfloat16, device="cuda")
for _ in range(4):
    y = torch.matmul(x, w.t())
torch.cuda.synchronize()
PY
timeout 120 ncu $S -k regex:nvjet -c 1 -s 2 python3 /tmp/cublas_one.py 2>&1 | grep -vE "^==PROF==|^$" | head -150
date +%T
