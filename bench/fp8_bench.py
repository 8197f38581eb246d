#!/usr/bin/env python3
"""matmul_fp8 against PyTorch's torch._scaled_mm (cuBLASLt's fp8 kernels) on the GPU machine, in one run:

    python3 bench/fp8_bench.py --lib .device/bin/libtessera.so --out OUT

c[M, N] = scale_a * scale_b * a[M, K] @ b[N, K]^T with e4m3 a and b and a bf16 c. The baseline is timed twice:
cuBLASLt's default (stage sums promoted to fp32, as tessera does) and with use_fast_accum (the tensor cores'
own fp8 sums). The bf16 matmul of the same shape (tessera) is timed too: what fp8 buys. Each row also reports
tessera's error against the fp32 product of the dequantised inputs, next to cuBLASLt's. CUDA events, warm-up,
median of many calls over input sets rotated past L2.
"""
import argparse
import json
import math
import os
import statistics

import torch

from gpu_bench import bench
from tessera_ctypes import Tessera

SHAPES = [(m, n, k) for m in (1, 16, 128, 2048, 4096) for (n, k) in ((4096, 4096), (14336, 4096), (4096, 14336))] + \
         [(s, s, s) for s in (2048, 4096, 8192)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--out", default=".")
    ap.add_argument("--shapes", default="", help="MxNxK,... instead of the default sweep")
    args = ap.parse_args()
    ts = Tessera(args.lib)
    shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")] if args.shapes else SHAPES
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    gpu = torch.cuda.get_device_name(0)
    print(f"{gpu}; tessera {ts.lib.tessera_version().decode()}")
    print(f"{'M x N x K':<20} {'tessera':>9} {'TFLOP/s':>8} {'Lt':>9} {'Lt fast':>9} {'x Lt':>6} {'x fast':>6} "
          f"{'bf16':>9} {'x bf16':>6}  {'err':>8} {'Lt err':>8}")
    rows = []
    scale_a, scale_b = 0.37, 0.5
    for (m, n, k) in shapes:
        nbytes = m * k + n * k + 2 * m * n
        copies = max(1, math.ceil(3 * l2 / nbytes))
        sets = []
        for _ in range(copies):
            a = (torch.randn(m, k, device="cuda") * 2).to(torch.float8_e4m3fn)
            b = (torch.randn(n, k, device="cuda") * 2).to(torch.float8_e4m3fn)
            sets.append((a, b, torch.empty(m, n, dtype=torch.bfloat16, device="cuda")))
        sa = torch.tensor(scale_a, device="cuda")
        sb = torch.tensor(scale_b, device="cuda")
        t_ts = bench(lambda a, b, c: ts.call("tessera_matmul_fp8", a, b, c, scale_a, scale_b), sets)

        def lt(a, b, c, fast):
            torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16, use_fast_accum=fast, out=c)
        t_lt = bench(lambda a, b, c: lt(a, b, c, False), sets)
        t_fast = bench(lambda a, b, c: lt(a, b, c, True), sets)
        bf = [(a.to(torch.bfloat16), b.to(torch.bfloat16), c) for (a, b, c) in sets[:max(1, math.ceil(3 * l2 / (2 * nbytes)))]]
        t_bf16 = bench(lambda a, b, c: ts.call("tessera_matmul", a, b, c, 0, None, 0, scale_a * scale_b, None), bf)
        del bf
        a, b, c = sets[0]
        ts.call("tessera_matmul_fp8", a, b, c, scale_a, scale_b)
        want = (a.float() @ b.float().t()) * (scale_a * scale_b)
        ref = torch.empty_like(c)
        lt(a, b, ref, False)
        err = ((c.float() - want).norm() / want.norm()).item()
        lt_err = ((ref.float() - want).norm() / want.norm()).item()
        tflops = 2 * m * n * k / (t_ts * 1e-6) / 1e12
        row = dict(m=m, n=n, k=k, tessera_us=round(t_ts, 2), tflops=round(tflops, 1), cublaslt_us=round(t_lt, 2),
                   cublaslt_fast_us=round(t_fast, 2), speedup_vs_lt=round(t_lt / t_ts, 3),
                   speedup_vs_fast=round(t_fast / t_ts, 3), bf16_us=round(t_bf16, 2), speedup_vs_bf16=round(t_bf16 / t_ts, 3),
                   rel_err=err, cublaslt_rel_err=lt_err, weight_gbs=round((n * k) / (t_ts * 1e-6) / 1e9, 1))
        rows.append(row)
        print(f"{f'{m}x{n}x{k}':<20} {t_ts:9.2f} {tflops:8.1f} {t_lt:9.2f} {t_fast:9.2f} {t_lt / t_ts:6.3f} "
              f"{t_fast / t_ts:6.3f} {t_bf16:9.2f} {t_bf16 / t_ts:6.3f}  {err:8.2e} {lt_err:8.2e}", flush=True)
        del sets
    ratios = sorted(r["speedup_vs_lt"] for r in rows)
    print(f"median x cuBLASLt {statistics.median(ratios):.3f}, worst {ratios[0]:.3f}")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "fp8_bench.json"), "w") as f:
        json.dump(dict(gpu=gpu, rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
