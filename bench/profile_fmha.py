#!/usr/bin/env python3
"""Prefill attention (fmha) at one shape, for a closer look (the GPU machine):

    python3 bench/profile_fmha.py --lib .device/bin/libtessera.so 8 16 2048 64 [--causal] [--cudnn]

Prints the device time from a CUDA graph of calls and TFLOP/s (4 B H S^2 D, halved when causal), and with
--cudnn PyTorch SDPA's cuDNN backend timed the same way in the same process. The configuration is the
autotuner's choice; TESSERA_AUTOTUNE_FORCE=fmha:NAME picks one (e.g. bn64_s12). Run it under
`ncu -k regex:FmhaStaged` with --once for the kernel's own counters. --fp8 times fmha_fp8 instead: q, k, v
quantised to e4m3 with per-tensor scales (amax / 448), o in bf16, checked against SDPA on the dequantised
tensors; the bf16 fmha on the same shape is timed beside it.
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
    p.add_argument("--fp8", action="store_true", help="fmha_fp8 on e4m3 inputs (and the bf16 fmha beside it)")
    p.add_argument("--o-layout", choices=["bhsd", "bshd"], default="bhsd",
                   help="o as [B, H, S, D] (stored through the copy engine) or a [B, S, H, D] tensor seen as "
                        "[B, H, S, D] (not one stack of [S, D] planes: stored from registers)")
    p.add_argument("b", type=int)
    p.add_argument("h", type=int)
    p.add_argument("s", type=int)
    p.add_argument("d", type=int)
    a = p.parse_args()
    ts = Tessera(a.lib)
    q, k, v = (torch.randn(a.b, a.h, a.s, a.d, dtype=torch.bfloat16, device="cuda") for _ in range(3))
    o = torch.empty_like(q)
    if a.o_layout == "bshd":
        o = torch.empty(a.b, a.s, a.h, a.d, dtype=q.dtype, device="cuda").transpose(1, 2)
    call = lambda q, k, v, o: ts.call("tessera_fmha", q, k, v, o, None, 0.0, int(a.causal), ctypes.c_int64(-1), 0.0)
    call(q, k, v, o)  # the first call tunes
    torch.cuda.synchronize()
    flops = 4 * a.b * a.h * a.s * a.s * a.d / (2 if a.causal else 1)
    if a.fp8:
        return fp8(a, ts, q, k, v, o, call, flops)
    if a.once:
        call(q, k, v, o)
        torch.cuda.synchronize()
        return
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=a.causal)
    err = float((o.float() - ref.float()).abs().max())
    t = bench_graph(call, [(q, k, v, o)]) or bench(call, [(q, k, v, o)], warmup=3, reps=20)
    line = f"fmha B {a.b} H {a.h} S {a.s} D {a.d}{' causal' if a.causal else ''} o {a.o_layout}: {t:.1f} us, {flops / t / 1e6:.1f} TFLOP/s"
    if a.cudnn:
        def sdpa(q, k, v, o):
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                F.scaled_dot_product_attention(q, k, v, is_causal=a.causal)
        tc = bench_graph(sdpa, [(q, k, v, o)]) or bench(sdpa, [(q, k, v, o)], warmup=3, reps=20)
        line += f" | cuDNN {tc:.1f} us, {flops / tc / 1e6:.1f} TFLOP/s, {tc / t:.3f}x"
    print(line + f" | max err {err:.3g}")


def fp8(a, ts, q, k, v, o, call16, flops):
    def quantise(t):
        scale = float(t.abs().max()) / 448.0
        return (t.float() / scale).to(torch.float8_e4m3fn), scale
    (q8, qs), (k8, ks), (v8, vs) = quantise(q), quantise(k), quantise(v)
    o8 = torch.empty_like(q)
    call = lambda q8, k8, v8, o8: ts.call("tessera_fmha_fp8", q8, k8, v8, o8, None, qs, ks, vs, 0.0, int(a.causal),
                                          ctypes.c_int64(-1), 0.0)
    call(q8, k8, v8, o8)
    torch.cuda.synchronize()
    deq = [(t8.float() * s).to(torch.bfloat16) for t8, s in ((q8, qs), (k8, ks), (v8, vs))]
    ref = F.scaled_dot_product_attention(*deq, is_causal=a.causal)
    err = float((o8.float() - ref.float()).abs().max())
    t8 = bench_graph(call, [(q8, k8, v8, o8)]) or bench(call, [(q8, k8, v8, o8)], warmup=3, reps=20)
    t16 = bench_graph(call16, [(q, k, v, o)]) or bench(call16, [(q, k, v, o)], warmup=3, reps=20)
    print(f"fmha_fp8 B {a.b} H {a.h} S {a.s} D {a.d}{' causal' if a.causal else ''}: {t8:.1f} us, "
          f"{flops / t8 / 1e6:.1f} TFLOP/s | bf16 fmha {t16:.1f} us, {flops / t16 / 1e6:.1f} TFLOP/s | "
          f"max err against SDPA on the dequantised tensors {err:.3g}")


if __name__ == "__main__":
    main()
