#!/usr/bin/env python3
"""Decode attention (fmha_decode) at one shape, for a closer look (the GPU machine):

    python3 bench/profile_decode.py --lib .device/bin/libtessera.so 1 4096

Prints the per-call time (CUDA events around one call: host work included), the device time from a CUDA graph of
calls, and the host time per call; run it under `ncu -k regex:Decode` for the kernels' own durations. GQA 32/8,
D 128, bf16, a paged cache of 16-token pages in a scrambled order (--page, --ordered, --contiguous change it;
--head-major stores each KV head's pages apart, [Hkv, pages, page, D], passed as a strided [pages, page, Hkv, D] view).
"""
import argparse
import ctypes
import time

import torch

from gpu_bench import bench, bench_graph
from tessera_ctypes import Tessera


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", required=True)
    p.add_argument("--calls", type=int, default=50)
    p.add_argument("--page", type=int, default=16, help="tokens per page (default 16)")
    p.add_argument("--ordered", action="store_true", help="pages in order instead of a random permutation")
    p.add_argument("--contiguous", action="store_true", help="a contiguous [B, S, Hkv, D] cache, no block table")
    p.add_argument("--head-major", action="store_true",
                   help="store the cache as [Hkv, pages, page, D] (a head's page is one block of memory), viewed as [pages, page, Hkv, D]")
    p.add_argument("--hq", type=int, default=32, help="query heads (default 32)")
    p.add_argument("--hkv", type=int, default=8, help="KV heads (default 8)")
    p.add_argument("--sdpa", action="store_true", help="also time SDPA's cuDNN backend on a contiguous [B, Hkv, S, D] copy")
    p.add_argument("b", type=int)
    p.add_argument("s", type=int)
    a = p.parse_args()
    ts = Tessera(a.lib)
    hq, hkv, d, dt = a.hq, a.hkv, 128, torch.bfloat16
    page = a.s if a.contiguous else a.page
    pages = a.b * a.s // page
    if a.head_major:
        kp, vp = (torch.randn(hkv, pages, page, d, dtype=dt, device="cuda").permute(1, 2, 0, 3) for _ in range(2))
    else:
        kp, vp = (torch.randn(pages, page, hkv, d, dtype=dt, device="cuda") for _ in range(2))
    order = torch.arange(pages, device="cuda") if a.ordered else torch.randperm(pages, device="cuda")
    table = None if a.contiguous else order.to(torch.int32).reshape(a.b, a.s // page)
    lens = torch.full((a.b,), a.s, dtype=torch.int32, device="cuda")
    q = torch.randn(a.b, 1, hq, d, dtype=dt, device="cuda")
    o = torch.empty_like(q)
    call = lambda q, o: ts.call("tessera_fmha_decode", q, kp, vp, table, lens, o, 0.0, ctypes.c_int64(-1), 0.0)
    per_call = bench(call, [(q, o)], warmup=3, reps=a.calls)
    graph = bench_graph(call, [(q, o)], reps=20)
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(a.calls):
        call(q, o)
    host = (time.perf_counter() - t) / a.calls * 1e6
    torch.cuda.synchronize()
    kv = 2 * a.b * a.s * hkv * d * 2
    layout = "contiguous" if a.contiguous else f"{page}-token pages{' in order' if a.ordered else ''}"
    layout += ", head-major" if a.head_major else ", token-major"
    print(f"B {a.b} S {a.s} Hq {hq} Hkv {hkv} ({layout}): per call {per_call:.1f} us, graph {graph} us "
          f"({kv / graph / 1e6 if graph else 0:.3f} TB/s), host {host:.1f} us per call")
    if a.sdpa:
        import torch.nn.functional as F
        from torch.nn.attention import SDPBackend, sdpa_kernel
        rows = order.long() if table is not None else torch.arange(pages, device="cuda")
        kt, vt = (x[rows].reshape(a.b, a.s, hkv, d).transpose(1, 2).contiguous() for x in (kp, vp))
        qt = q.transpose(1, 2)
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            sdpa = lambda q: F.scaled_dot_product_attention(q, kt, vt, enable_gqa=True)
            t = bench_graph(sdpa, [(qt,)], reps=20)
        print(f"  SDPA cuDNN on contiguous [B, Hkv, S, D]: graph {t} us ({kv / t / 1e6 if t else 0:.3f} TB/s)")


if __name__ == "__main__":
    main()
