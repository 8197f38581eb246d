#!/usr/bin/env python3
"""One matmul shape, called a few times through the C API, for a profiler to look at (the GPU machine):

    TESSERA_AUTOTUNE=0 ncu --section SpeedOfLight -k regex:Matmul -c 1 -s 2 \\
        python3 bench/profile_matmul.py --lib .device/bin/libtessera.so 1 14336 4096

y[M, N] = x[M, K] @ w[N, K]^T in bf16, random inputs.
"""
import argparse

import torch

from tessera_ctypes import Tessera


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", required=True)
    p.add_argument("--calls", type=int, default=4)
    p.add_argument("m", type=int)
    p.add_argument("n", type=int)
    p.add_argument("k", type=int)
    a = p.parse_args()
    ts = Tessera(a.lib)
    x = torch.randn(a.m, a.k, dtype=torch.bfloat16, device="cuda")
    w = torch.randn(a.n, a.k, dtype=torch.bfloat16, device="cuda")
    y = torch.empty(a.m, a.n, dtype=torch.bfloat16, device="cuda")
    for _ in range(a.calls):
        ts.call("tessera_matmul", x, w, y, 0, None, 0, 1.0, None)
    torch.cuda.synchronize()
    err = ((y.float() - x.float() @ w.float().t()).norm() / (x.float() @ w.float().t()).norm()).item()
    print(f"{a.m}x{a.n}x{a.k}: relative error {err:.2e}")


if __name__ == "__main__":
    main()
