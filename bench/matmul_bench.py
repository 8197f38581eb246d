"""The matmul targets of issue 3, against cuBLAS through PyTorch in the same run: bf16 in and out, fp32
accumulate, y = x @ w^T with w as [N, K] (nn.Linear's layout).

Squares 1024..8192 and the LLM shapes M in {1, 16, 128, 2048, 4096} x (N, K) in {(4096, 4096), (14336, 4096),
(4096, 14336), (128256, 4096)}. CUDA events, warm-up, median; random data; inputs rotated past 3x L2.
Each shape is also checked against torch (relative Frobenius error). For M <= 64 the table gives the
weights' bandwidth as % of the measured copy bandwidth (the decode target).

To compare builds, run it once per build, alternating builds, with one TESSERA_CACHE_DIR for all runs (the first
tunes, the others run its choices) and `--rounds 2` or more: tessera and cuBLAS are then timed in turns and
the lower of each side's times kept (clocks and the machine's load move both between turns).
"""
import argparse
import datetime
import json
import os
import statistics

import torch

from gpu_bench import bench, copies_for
from tessera_ctypes import Tessera


def bench_graphs(fn, sets, calls=10, reps=15):
    """Median microseconds per call of fn(*inputs): `calls` calls cycling over the input sets (so the working set
    exceeds L2) captured once in a CUDA graph, so host overhead (ctypes for tessera, the dispatcher for torch)
    stays out of the device time."""
    calls = max(calls, len(sets))
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for s in sets:
            fn(*s)  # warm-up outside capture (tensor maps, attributes, autotuning)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=stream):
        for i in range(calls):
            fn(*sets[i % len(sets)])
    g.replay()
    torch.cuda.synchronize()
    times = []
    for i in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        g.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / calls)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--quick", action="store_true", help="a few shapes only")
    ap.add_argument("--shapes", help="MxNxK,... instead of the sweep (e.g. the engine's 1x6144x4096)")
    ap.add_argument("--glu-only", action="store_true", help="only the matmul_silu_and_mul table")
    ap.add_argument("--no-glu", action="store_true", help="without the matmul_silu_and_mul table")
    ap.add_argument("--rounds", type=int, default=1, help="time tessera and cuBLAS in turns this many times, keep the lowest")
    ap.add_argument("--label", default="", help="prefix of every printed line (the build's name, when comparing)")
    args = ap.parse_args()
    ts = Tessera(args.lib)
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    gpu = torch.cuda.get_device_name(0)
    dt = torch.bfloat16

    n = 1 << 30
    src, dst = torch.empty(n, dtype=torch.uint8, device="cuda"), torch.empty(n, dtype=torch.uint8, device="cuda")
    copy_bw = 2 * n / (bench(lambda a, b: b.copy_(a), [(src, dst)], reps=20) * 1e-6) / 1e12
    del src, dst

    shapes = [(s, s, s) for s in (1024, 2048, 4096, 8192)]
    shapes += [(m, nn, k) for m in (1, 16, 128, 2048, 4096) for (nn, k) in ((4096, 4096), (14336, 4096), (4096, 14336), (128256, 4096))]
    if args.quick:
        shapes = [(4096, 4096, 4096), (2048, 14336, 4096), (16, 4096, 4096)]
    if args.shapes:
        shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    if args.glu_only:
        shapes = []
    rows = []
    print(f"{args.label}{gpu}: copy {copy_bw:.2f} TB/s")
    for (m, nn, k) in shapes:
        c = copies_for(2 * (m * k + nn * k + m * nn), l2)
        sets = [(torch.randn(m, k, dtype=dt, device="cuda"), torch.randn(nn, k, dtype=dt, device="cuda") * 0.05,
                 torch.empty(m, nn, dtype=dt, device="cuda")) for _ in range(c)]
        a, w, y = sets[0]
        y.fill_(float("nan"))
        ts.call("tessera_matmul", a, w, y, 0, None, 0, 1.0, None)
        torch.cuda.synchronize()
        ref = (a.float() @ w.float().t())
        err = ((y.float() - ref).norm() / ref.norm()).item()
        calls = 10 if 2 * m * nn * k < 1e12 else 3
        tts, tps = [], []
        for _ in range(args.rounds):
            tts.append(bench_graphs(lambda a, w, y: ts.call("tessera_matmul", a, w, y, 0, None, 0, 1.0, None), sets, calls))
            tps.append(bench_graphs(lambda a, w, y: torch.matmul(a, w.t(), out=y), sets, calls))
        tt, tp = min(tts), min(tps)
        flops = 2 * m * nn * k
        wbytes = 2 * (nn * k + m * k + m * nn)
        r = dict(shape=f"{m}x{nn}x{k}", m=m, tessera_us=round(tt, 2), cublas_us=round(tp, 2),
                 tessera_tflops=round(flops / tt / 1e6, 1), cublas_tflops=round(flops / tp / 1e6, 1),
                 ratio=round(tp / tt, 3), pct_copy=round(100 * wbytes / (tt * 1e-6) / 1e12 / copy_bw, 1), rel_err=err)
        rows.append(r)
        print(f"{args.label}{r['shape']:<20} tessera {tt:9.1f} us {r['tessera_tflops']:6.1f} TF  cuBLAS {tp:9.1f} us {r['cublas_tflops']:6.1f} TF"
              f"  ratio {r['ratio']:.3f}  {r['pct_copy']:5.1f}% copy  err {err:.1e}", flush=True)
        del sets, a, w, y, ref
        torch.cuda.empty_cache()
    if not args.no_glu:
        glu_table(ts, gpu, copy_bw, l2, dt, args.out)
    if not rows:
        return
    med = statistics.median(r["ratio"] for r in rows)
    worst = min(rows, key=lambda r: r["ratio"])
    print(f"{args.label}median ratio {med:.4f}x over {len(rows)} shapes, worst {worst['shape']} {worst['ratio']:.3f}x")
    date = datetime.date.today().isoformat()
    with open(os.path.join(args.out, "matmul_bench.json"), "w") as f:
        json.dump(dict(gpu=gpu, date=date, torch=torch.__version__, copy_tbs=round(copy_bw, 3), median_ratio=med, rows=rows), f, indent=1)
    with open(os.path.join(args.out, "matmul_bench.md"), "w") as f:
        f.write(f"# Matmul, bf16, y = x @ w^T, {gpu}, {date}\n\ncuBLAS through PyTorch {torch.__version__} in the same run; "
                f"copy bandwidth {copy_bw:.2f} TB/s. Median ratio (cuBLAS time / tessera time): {med:.3f}x.\n\n")
        f.write("| M x N x K | tessera us | TFLOP/s | cuBLAS us | cuBLAS TFLOP/s | ratio | % of copy (bytes moved) | rel. error |\n|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['shape']} | {r['tessera_us']} | {r['tessera_tflops']} | {r['cublas_us']} | {r['cublas_tflops']} | {r['ratio']}x | {r['pct_copy']} | {r['rel_err']:.1e} |\n")


def glu_table(ts, gpu, copy_bw, l2, dt, out):
    """matmul_silu_and_mul (SwiGLU's gate/up projection, Llama-3.1-8B's I = 14336, K = 4096) at decode and prefill
    sizes: tessera's one op against PyTorch's matmul then F.silu * up, and against tessera's matmul then silu_and_mul."""
    rows = []
    i, k = 14336, 4096
    for m in (1, 16, 32, 64, 128, 2048, 4096):
        c = copies_for(2 * (m * k + 2 * i * k + 3 * m * i), l2)
        sets = [(torch.randn(m, k, dtype=dt, device="cuda"), torch.randn(2 * i, k, dtype=dt, device="cuda") * 0.05,
                 torch.empty(m, i, dtype=dt, device="cuda"), torch.empty(m, 2 * i, dtype=dt, device="cuda"))
                for _ in range(c)]
        a, w, y, tmp = sets[0]
        y.fill_(float("nan"))
        ts.call("tessera_matmul_silu_and_mul", a, w, y, tmp)
        torch.cuda.synchronize()
        prod = a.float() @ w.float().t()
        ref = torch.nn.functional.silu(prod[:, :i]) * prod[:, i:]
        err = ((y.float() - ref).norm() / ref.norm()).item()
        fused = bench_graphs(lambda a, w, y, tmp: ts.call("tessera_matmul_silu_and_mul", a, w, y, tmp), sets)
        two_ops = bench_graphs(lambda a, w, y, tmp: (ts.call("tessera_matmul", a, w, tmp, 0, None, 0, 1.0, None),
                                                     ts.call("tessera_silu_and_mul", tmp, y)), sets)
        torch_us = bench_graphs(lambda a, w, y, tmp: torch.mul(torch.nn.functional.silu(torch.matmul(a, w.t(), out=tmp)[:, :i]),
                                                               tmp[:, i:], out=y), sets)
        pct = 100 * 2 * (2 * i * k) / (fused * 1e-6) / 1e12 / copy_bw
        tflops = 2 * m * 2 * i * k / fused / 1e6
        rows.append(dict(m=m, fused_us=round(fused, 2), two_ops_us=round(two_ops, 2), torch_us=round(torch_us, 2),
                         vs_torch=round(torch_us / fused, 3), pct_copy=round(pct, 1), tflops=round(tflops, 1), rel_err=err))
        print(f"matmul_silu_and_mul {m}x{i}x{k}: tessera {fused:.1f} us ({pct:.1f}% copy, {tflops:.0f} TFLOP/s), tessera matmul + "
              f"silu_and_mul {two_ops:.1f} us, torch {torch_us:.1f} us (x {torch_us / fused:.3f}), err {err:.1e}", flush=True)
        del sets, a, w, y, tmp, prod, ref
        torch.cuda.empty_cache()
    with open(os.path.join(out, "matmul_glu_bench.md"), "w") as f:
        f.write(f"# matmul_silu_and_mul, bf16, {gpu}, {datetime.date.today().isoformat()}\n\n"
                f"c = silu(x @ Wg^T) * (x @ Wu^T), I = {i}, K = {k} (Llama-3.1-8B's MLP). PyTorch: torch.matmul (cuBLAS) "
                f"into [M, 2I], then F.silu * up. CUDA graphs of 10 calls over inputs rotated past 3x L2, medians; "
                f"copy bandwidth {copy_bw:.2f} TB/s.\n\n| M | tessera us | % of copy (weights) | TFLOP/s | tessera matmul + "
                f"silu_and_mul us | PyTorch us | PyTorch / tessera | rel. error |\n|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['m']} | {r['fused_us']} | {r['pct_copy']} | {r['tflops']} | {r['two_ops_us']} | {r['torch_us']} "
                    f"| {r['vs_torch']}x | {r['rel_err']:.1e} |\n")


if __name__ == "__main__":
    main()
