#!/usr/bin/env bash
# Session 44, run 4c: run 4's two kernels at 16 x 14336 x 4096 under ncu with the clocks left free
# (--clock-control none) against locked to base (ncu's default): a kernel whose time follows the SM clock is
# bound by its instructions (the consumer's chain), not by memory.
set -u
cd "$(dirname "$0")"
mkdir -p bin
xz -dc r2/libtessera.so.xz > bin/libtessera.so
nvidia-smi -L; date +%T
cd ../bench
cat > /tmp/cublas_one.py <<'PY'
import torch
x = torch.randn(16, 4096, dtype=torch.bfloat16, device="cuda")
w = torch.randn(14336, 4096, dtype=torch.bfloat16, device="cuda")
for _ in range(4):
    y = torch.matmul(x, w.t())
torch.cuda.synchronize()
PY
for clock in base none; do
  echo "== clock-control $clock: tessera swapab_bw64_bk128_wave"
  TESSERA_AUTOTUNE_FORCE=matmul:swapab_bw64_bk128_wave timeout 120 ncu --clock-control $clock --section SpeedOfLight -k regex:kernel_entry -c 3 -s 1 python3 profile_matmul.py --lib ../.device/bin/libtessera.so 16 14336 4096 2>&1 | grep -E "SM Frequency|Duration|DRAM Throughput"
  echo "== clock-control $clock: cuBLAS"
  timeout 120 ncu --clock-control $clock --section SpeedOfLight -k regex:nvjet -c 3 -s 1 python3 /tmp/cublas_one.py 2>&1 | grep -E "SM Frequency|Duration|DRAM Throughput"
done
date +%T
