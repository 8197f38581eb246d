#!/usr/bin/env python3
"""MLA decode (mla_decode) at one shape, for a closer look (the GPU machine):

    python3 bench/profile_mla.py --lib .device/bin/libtessera.so 64 8192

Prints the device time from a CUDA graph of calls and the rate (TFLOP/s counting 2 B H S (576 + 512), TB/s of
latent bytes); run it under `ncu -k regex:MlaDecode` for the kernel's own counters. 128 heads, latent 512 + 64,
bf16, pages of 64 tokens in a scrambled order.
"""
import argparse
import ctypes

import torch

from gpu_bench import bench, bench_graph
from tessera_ctypes import Tessera


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", required=True)
    p.add_argument("--page", type=int, default=64, help="tokens per page (default 64)")
    p.add_argument("--heads", type=int, default=128)
    p.add_argument("--once", action="store_true", help="one call after a warm-up, no timing (for ncu)")
    p.add_argument("b", type=int)
    p.add_argument("s", type=int)
    a = p.parse_args()
    ts = Tessera(a.lib)
    rank, rope, dt = 512, 64, torch.bfloat16
    pages = a.b * a.s // a.page
    latent = torch.randn(pages, a.page, rank + rope, dtype=dt, device="cuda")
    table = torch.randperm(pages, device="cuda").to(torch.int32).reshape(a.b, a.s // a.page)
    lens = torch.full((a.b,), a.s, dtype=torch.int32, device="cuda")
    q = torch.randn(a.b, 1, a.heads, rank + rope, dtype=dt, device="cuda")
    o = torch.empty(a.b, 1, a.heads, rank, dtype=dt, device="cuda")
    scale = ctypes.c_float((rank + rope) ** -0.5)
    call = lambda q, o: ts.call("tessera_mla_decode", q, latent, table, lens, o, scale, ctypes.c_int64(-1), 0.0)
    if a.once:
        call(q, o)
        torch.cuda.synchronize()
        call(q, o)
        torch.cuda.synchronize()
        return
    t = bench_graph(call, [(q, o)]) or bench(call, [(q, o)], warmup=3, reps=20)
    flops = 2 * a.b * a.heads * a.s * (rank + rope + rank)
    print(f"mla_decode B {a.b} S {a.s} H {a.heads}: {t:.1f} us, {flops / t / 1e6:.1f} TFLOP/s, "
          f"{a.b * a.s * (rank + rope) * 2 / t / 1e6:.3f} TB/s of latent")


if __name__ == "__main__":
    main()
