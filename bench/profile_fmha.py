#!/usr/bin/env python3
"""Prefill attention (fmha) at one shape, for a closer look (the GPU machine):

    python3 bench/profile_fmha.py --lib .device/bin/libtessera.so 8 16 2048 64 [--causal] [--cudnn]

Prints the device time from a CUDA graph of calls and TFLOP/s (4 B H S^2 D, halved when causal), and with
--cudnn PyTorch SDPA's cuDNN backend timed the same way in the same process. The configuration is the
autotuner's choice; TESSERA_AUTOTUNE_FORCE=fmha:NAME picks one (e.g. bn64_s12). Run it under
`ncu -k regex:FmhaStaged` with --once for the kernel's own counters.
"""
import argparse
import ctypes

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from gpu_bench import bench, bench_graph
from tessera_ctypes import Tessera


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", required=True)
    p.add_argument("--causal", action="store_true")
    p.add_argument("--cudnn", action="store_true", help="also time SDPA's cuDNN backend")
    p.add_argument("--once", action="store_true", help="one call after a warm-up, no timing (for ncu)")
    p.add_argument("b", type=int)
    p.add_argument("h", type=int)
    p.add_argument("s", type=int)
    p.add_argument("d", type=int)
    a = p.parse_args()
    ts = Tessera(a.lib)
    q, k, v = (torch.randn(a.b, a.h, a.s, a.d, dtype=torch.bfloat16, device="cuda") for _ in range(3))
    o = torch.empty_like(q)
    call = lambda q, k, v, o: ts.call("tessera_fmha", q, k, v, o, None, 0.0, int(a.causal), ctypes.c_int64(-1), 0.0)
    call(q, k, v, o)  # the first call tunes
    torch.cuda.synchronize()
    if a.once:
        call(q, k, v, o)
        torch.cuda.synchronize()
        return
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=a.causal)
    err = float((o.float() - ref.float()).abs().max())
    flops = 4 * a.b * a.h * a.s * a.s * a.d / (2 if a.causal else 1)
    t = bench_graph(call, [(q, k, v, o)]) or bench(call, [(q, k, v, o)], warmup=3, reps=20)
    line = f"fmha B {a.b} H {a.h} S {a.s} D {a.d}{' causal' if a.causal else ''}: {t:.1f} us, {flops / t / 1e6:.1f} TFLOP/s"
    if a.cudnn:
        def sdpa(q, k, v, o):
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                F.scaled_dot_product_attention(q, k, v, is_causal=a.causal)
        tc = bench_graph(sdpa, [(q, k, v, o)]) or bench(sdpa, [(q, k, v, o)], warmup=3, reps=20)
        line += f" | cuDNN {tc:.1f} us, {flops / tc / 1e6:.1f} TFLOP/s, {tc / t:.3f}x"
    print(line + f" | max err {err:.3g}")


if __name__ == "__main__":
    main()
