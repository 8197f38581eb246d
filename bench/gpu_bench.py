"""Times tessera's ops against PyTorch on the GPU, in the same run, and writes JSON and markdown.

CUDA events, warm-up, median of many runs, random data; inputs rotate over several copies so the working set
exceeds L2. Bandwidth counts the bytes each op must move (inputs read once, outputs written once) over the
measured device-to-device copy bandwidth.
"""
import argparse
import ctypes
import datetime
import json
import math
import os
import statistics

import torch
import torch.nn.functional as F

from tessera_ctypes import Tessera


def bench(fn, sets, warmup=5, reps=40):
    """Median time in microseconds of fn(*inputs), rotating over the input sets."""
    for i in range(warmup):
        fn(*sets[i % len(sets)])
    torch.cuda.synchronize()
    times = []
    for i in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(*sets[i % len(sets)])
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return statistics.median(times)


def bench_graph(fn, sets, reps=20):
    """Median device time in microseconds of one fn call, from a CUDA graph of `reps` calls rotating over the
    input sets: host-side call overhead (Python, ctypes, the C API's checks) is excluded, for tessera and the
    baseline alike. None when fn cannot be captured (e.g. it synchronises)."""
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for i in range(3):
                fn(*sets[i % len(sets)])
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        # Captured on the warm-up's stream: scratch kept per stream (decode attention's partials) was sized by the
        # warm-up, so the capture allocates nothing (the library could grow it beside the capture, session 27).
        with torch.cuda.graph(g, stream=side, capture_error_mode="relaxed"):
            for i in range(reps):
                fn(*sets[i % len(sets)])
        g.replay()
        torch.cuda.synchronize()
        times = []
        for _ in range(7):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            g.replay()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1e3 / reps)
        del g
        return statistics.median(times)
    except Exception as e:  # capture not possible: report per-call timing only
        print(f"  (graph capture failed: {type(e).__name__}: {str(e)[:80]})")
        torch.cuda.synchronize()
        return None


def copies_for(nbytes, l2):
    return max(1, math.ceil(3 * l2 / max(nbytes, 1)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--no-matmul", action="store_true", help="skip the matmul comparison")
    ap.add_argument("--attention-only", action="store_true", help="only prefill attention (fmha) against SDPA")
    ap.add_argument("--prefill-only", action="store_true", help="only the attention forward (fmha) against SDPA")
    ap.add_argument("--head-dims", default="", help="prefill shapes of these q/k head dims only, e.g. 192 or 64,128")
    ap.add_argument("--backward-only", action="store_true", help="only the attention backward against SDPA's")
    ap.add_argument("--membound-only", action="store_true", help="only the memory-bound ops (norms, activations, rope...)")
    ap.add_argument("--decode-only", action="store_true", help="only decode attention (fmha_decode) against SDPA")
    ap.add_argument("--mla-only", action="store_true", help="only MLA decode (mla_decode) against PyTorch's absorbed MLA")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    # The sections this run times: all of them unless an --*-only flag picks some.
    only = set()
    if args.membound_only: only.add("membound")
    if args.attention_only: only |= {"prefill", "backward"}
    if args.prefill_only: only.add("prefill")
    if args.backward_only: only.add("backward")
    if args.decode_only: only.add("decode")
    if args.mla_only: only.add("mla")
    runs = lambda section: not only or section in only
    ts = Tessera(args.lib)
    props = torch.cuda.get_device_properties(0)
    l2 = props.L2_cache_size
    gpu = torch.cuda.get_device_name(0)
    dt = torch.bfloat16

    # Ceiling: device-to-device copy, bytes read + written.
    n = 1 << 30
    src, dst = torch.empty(n, dtype=torch.uint8, device="cuda"), torch.empty(n, dtype=torch.uint8, device="cuda")
    t = bench(lambda a, b: b.copy_(a), [(src, dst)], reps=20)
    copy_bw = 2 * n / (t * 1e-6) / 1e12
    del src, dst
    print(f"{gpu}: copy bandwidth {copy_bw:.2f} TB/s, L2 {l2 >> 20} MB")

    rows = []

    def record(op, shape, nbytes, t_tessera, t_torch, baseline, g_tessera=None, g_torch=None):
        """t_*: per-call event timings (host overhead included when it exceeds the kernel); g_*: in-graph device
        time. The headline TB/s uses the graph time when both sides could be captured."""
        graph = g_tessera is not None and g_torch is not None
        tt, tp = (g_tessera, g_torch) if graph else (t_tessera, t_torch)
        tb = nbytes / (tt * 1e-6) / 1e12
        rows.append(dict(op=op, shape=shape, timing="graph" if graph else "per-call", tessera_us=round(tt, 2),
                         torch_us=round(tp, 2), baseline=baseline, tessera_tbs=round(tb, 3),
                         pct_copy=round(100 * tb / copy_bw, 1), speedup=round(tp / tt, 3),
                         tessera_call_us=round(t_tessera, 2), torch_call_us=round(t_torch, 2)))
        print(f"{op:<18} {shape:<10} {'graph' if graph else 'call '} tessera {tt:8.1f} us {tb:5.2f} TB/s ({100 * tb / copy_bw:5.1f}%)  "
              f"{baseline} {tp:8.1f} us  x{tp / tt:5.2f}   per-call: {t_tessera:7.1f} vs {t_torch:7.1f} us")

    for (m, k) in [(16384, 8192), (4096, 4096)] if runs("membound") else []:
        shape = f"{m}x{k}"
        ebytes = m * k * 2
        c = copies_for(3 * ebytes, l2)
        mk = lambda *s: torch.randn(*s, dtype=dt, device="cuda")

        sets = [(mk(m, k), mk(k) * 0.1 + 1, torch.empty(m, k, dtype=dt, device="cuda")) for _ in range(c)]
        tt = bench(lambda x, w, y: ts.call("tessera_rms_norm", x, w, y, 1e-6), sets)
        tp = bench(lambda x, w, y: F.rms_norm(x, (k,), w, 1e-6), sets)
        gt = bench_graph(lambda x, w, y: ts.call("tessera_rms_norm", x, w, y, 1e-6), sets)
        gp = bench_graph(lambda x, w, y: F.rms_norm(x, (k,), w, 1e-6), sets)
        record("rms_norm", shape, 2 * ebytes, tt, tp, "F.rms_norm", gt, gp)
        del sets

        sets = [(mk(m, k), mk(m, k), mk(k), torch.empty(m, k, dtype=dt, device="cuda")) for _ in range(c)]
        tt = bench(lambda x, r, w, y: ts.call("tessera_rms_norm_residual", x, r, r, w, y, 1e-6), sets)
        def torch_res(x, r, w, y):
            r.add_(x)
            return F.rms_norm(r, (k,), w, 1e-6)
        tp = bench(torch_res, sets)
        gt = bench_graph(lambda x, r, w, y: ts.call("tessera_rms_norm_residual", x, r, r, w, y, 1e-6), sets)
        gp = bench_graph(torch_res, sets)
        record("rms_norm_residual", shape, 4 * ebytes, tt, tp, "add_+F.rms_norm", gt, gp)
        del sets

        sets = [(mk(m, k), mk(k), mk(k), torch.empty(m, k, dtype=dt, device="cuda")) for _ in range(c)]
        tt = bench(lambda x, w, b, y: ts.call("tessera_layer_norm", x, w, b, y, 1e-5), sets)
        tp = bench(lambda x, w, b, y: F.layer_norm(x, (k,), w, b, 1e-5), sets)
        gt = bench_graph(lambda x, w, b, y: ts.call("tessera_layer_norm", x, w, b, y, 1e-5), sets)
        gp = bench_graph(lambda x, w, b, y: F.layer_norm(x, (k,), w, b, 1e-5), sets)
        record("layer_norm", shape, 2 * ebytes, tt, tp, "F.layer_norm", gt, gp)
        del sets

        sets = [(mk(m, k), torch.empty(m, k, dtype=dt, device="cuda")) for _ in range(c)]
        tt = bench(lambda x, y: ts.call("tessera_softmax", x, y, 1.0), sets)
        tp = bench(lambda x, y: torch.softmax(x, -1), sets)
        gt = bench_graph(lambda x, y: ts.call("tessera_softmax", x, y, 1.0), sets)
        gp = bench_graph(lambda x, y: torch.softmax(x, -1), sets)
        record("softmax", shape, 2 * ebytes, tt, tp, "torch.softmax", gt, gp)
        tt = bench(lambda x, y: ts.call("tessera_gelu", x, y, 0), sets)
        tp = bench(lambda x, y: F.gelu(x), sets)
        gt = bench_graph(lambda x, y: ts.call("tessera_gelu", x, y, 0), sets)
        gp = bench_graph(lambda x, y: F.gelu(x), sets)
        record("gelu", shape, 2 * ebytes, tt, tp, "F.gelu", gt, gp)
        del sets

        sets = [(mk(m, 2 * k), torch.empty(m, k, dtype=dt, device="cuda")) for _ in range(max(1, c // 2))]
        tt = bench(lambda x, y: ts.call("tessera_silu_and_mul", x, y), sets)
        tp = bench(lambda x, y: F.silu(x[:, :k]) * x[:, k:], sets)
        gt = bench_graph(lambda x, y: ts.call("tessera_silu_and_mul", x, y), sets)
        gp = bench_graph(lambda x, y: F.silu(x[:, :k]) * x[:, k:], sets)
        record("silu_and_mul", shape, 3 * ebytes, tt, tp, "F.silu*mul", gt, gp)
        del sets

        # rope over [tokens, heads, 128] with the same number of elements.
        heads, d = k // 128, 128
        inv = (1.0 / (10000 ** (torch.arange(0, d, 2, device="cuda").float() / d))).contiguous()
        sets = [(mk(m, heads, d), torch.randint(0, 4096, (m,), device="cuda", dtype=torch.int64)) for _ in range(c)]
        tt = bench(lambda x, p: ts.call("tessera_rope", x, p, inv, x, 0, 0), sets)
        def torch_rope(x, p):
            f = p[:, None].float() * inv[None, :]
            emb = torch.cat([f, f], -1)
            cos, sin = emb.cos()[:, None, :].to(dt), emb.sin()[:, None, :].to(dt)
            x1, x2 = x[..., : d // 2], x[..., d // 2:]
            return x * cos + torch.cat([-x2, x1], -1) * sin
        tp = bench(torch_rope, sets)
        gt = bench_graph(lambda x, p: ts.call("tessera_rope", x, p, inv, x, 0, 0), sets)
        gp = bench_graph(torch_rope, sets)
        record("rope", shape, 2 * ebytes, tt, tp, "HF-style torch", gt, gp)
        del sets

        vocab = 32000
        table = mk(vocab, k)
        sets = [(torch.randint(0, vocab, (m,), device="cuda", dtype=torch.int32), torch.empty(m, k, dtype=dt, device="cuda")) for _ in range(c)]
        tt = bench(lambda ids, y: ts.call("tessera_embedding", ids, table, y), sets)
        tp = bench(lambda ids, y: F.embedding(ids, table), sets)
        # In a graph capture the id check (a read-back, which waits for the stream) is skipped: the graph time is
        # the gather's alone; the per-call time includes the check.
        gt = bench_graph(lambda ids, y: ts.call("tessera_embedding", ids, table, y), sets)
        gp = bench_graph(lambda ids, y: F.embedding(ids, table), sets)
        record("embedding", shape, 2 * ebytes, tt, tp, "F.embedding", gt, gp)
        del sets, table
        torch.cuda.empty_cache()

    # Greedy token choice over a decode step's f32 logits rows (Llama 3 vocabulary).
    for logit_rows in (1, 32) if runs("argmax") else ():
        vocab = 128256
        shape = f"{logit_rows}x{vocab}"
        c = copies_for(logit_rows * vocab * 4, l2)
        sets = [(torch.randn(logit_rows, vocab, device="cuda"), torch.empty(logit_rows, dtype=torch.int32, device="cuda")) for _ in range(c)]
        tt = bench(lambda x, y: ts.call("tessera_argmax", x, y), sets)
        tp = bench(lambda x, y: torch.argmax(x, -1), sets)
        gt = bench_graph(lambda x, y: ts.call("tessera_argmax", x, y), sets)
        gp = bench_graph(lambda x, y: torch.argmax(x, -1), sets)
        record("argmax", shape, logit_rows * vocab * 4, tt, tp, "torch.argmax", gt, gp)
        x, y = sets[0]
        ts.call("tessera_argmax", x, y)
        assert torch.equal(y.long(), torch.argmax(x, -1)), "argmax differs from torch.argmax"
        del sets

    # Matmul (bf16 in and out, fp32 accumulate) against cuBLAS through torch: y = x @ w^T, w as [N, K].
    mm_rows = []
    for (m, n, k) in [(4096, 4096, 4096), (2048, 14336, 4096), (128, 14336, 4096), (16, 4096, 4096), (1, 14336, 4096)] if runs("matmul") and not args.no_matmul else []:
        c = copies_for(2 * (m * k + n * k), l2)
        sets = [(torch.randn(m, k, dtype=dt, device="cuda"), torch.randn(n, k, dtype=dt, device="cuda") * 0.02,
                 torch.empty(m, n, dtype=dt, device="cuda")) for _ in range(c)]
        tt = bench(lambda a, w, y: ts.call("tessera_matmul", a, w, y, 0, None, 0, 1.0, None), sets, warmup=2, reps=10)
        tp = bench(lambda a, w, y: torch.matmul(a, w.t(), out=y), sets)
        flops = 2 * m * n * k
        r = dict(shape=f"{m}x{n}x{k}", tessera_us=round(tt, 1), cublas_us=round(tp, 1), tessera_tflops=round(flops / tt / 1e6, 2),
                 cublas_tflops=round(flops / tp / 1e6, 1), ratio=round(tp / tt, 4))
        mm_rows.append(r)
        print(f"matmul {r['shape']:<18} tessera {tt:10.1f} us {r['tessera_tflops']:7.2f} TFLOP/s   cuBLAS {tp:8.1f} us "
              f"{r['cublas_tflops']:6.1f} TFLOP/s   ratio {r['ratio']:.4f}x")
        del sets
        torch.cuda.empty_cache()

    # Attention forward (bf16) against torch SDPA's cuDNN and flash backends, shapes of ANCHORS.md. FLOPs:
    # 4 B H Sq Sk D, halved when causal. The outputs are compared too, so a fast wrong kernel shows.
    from torch.nn.attention import SDPBackend, sdpa_kernel
    attn_rows = []

    def sdpa_time(backend, q, k, v, causal, graph=False):
        try:
            with sdpa_kernel(backend):
                fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                if graph:
                    t = bench_graph(fn, [(q, k, v)], reps=8)
                    return float("nan") if t is None else t
                return bench(fn, [(q, k, v)], warmup=2, reps=10)
        except RuntimeError as e:  # the backend does not take this shape
            print(f"  {backend.name}: {str(e).splitlines()[0][:100]}")
            return float("nan")

    for (b, h, s, d, causal) in [] if not runs("prefill") else [(16, 16, 1024, 128, False), (4, 16, 4096, 128, False), (1, 16, 16384, 128, False),
                                 (4, 16, 4096, 256, False), (8, 16, 2048, 64, False), (16, 16, 1024, 128, True),
                                 (4, 16, 4096, 128, True), (1, 16, 16384, 128, True), (8, 16, 2048, 64, True),
                                 (16, 16, 1024, 192, False), (4, 16, 4096, 192, False), (4, 16, 4096, 192, True)]:
        if args.head_dims and str(d) not in args.head_dims.split(","):
            continue
        # d 192: MLA prefill (DeepSeek-V2), keys 128 + 64 rotary columns wide, values 128.
        dv = 128 if d == 192 else d
        q, k = (torch.randn(b, h, s, d, dtype=dt, device="cuda") for _ in range(2))
        v = torch.randn(b, h, s, dv, dtype=dt, device="cuda")
        o = torch.empty(b, h, s, dv, dtype=dt, device="cuda")
        sets = [(q, k, v, o)]
        call = lambda q, k, v, o: ts.call("tessera_fmha", q, k, v, o, None, 0.0, int(causal), ctypes.c_int64(-1), 0.0)
        tc = bench(call, sets, warmup=1, reps=5)  # the first call tunes
        ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        err = float((o.float() - ref.float()).abs().max())
        # Device time from CUDA graphs of several calls, both sides (per-call timings kept in the table).
        tg = bench_graph(call, sets, reps=8)
        tt = tg if tg is not None else tc
        t_cudnn = sdpa_time(SDPBackend.CUDNN_ATTENTION, q, k, v, causal, graph=tg is not None)
        t_flash = sdpa_time(SDPBackend.FLASH_ATTENTION, q, k, v, causal, graph=tg is not None)
        t_cudnn_call = sdpa_time(SDPBackend.CUDNN_ATTENTION, q, k, v, causal)
        t_efficient = sdpa_time(SDPBackend.EFFICIENT_ATTENTION, q, k, v, causal, graph=tg is not None) if dv != d else float("nan")
        flops = 2 * b * h * s * s * (d + dv) / (2 if causal else 1)
        tf = lambda t: round(flops / t / 1e6, 1) if t == t else None
        r = dict(shape=f"{b},{h},{s},{d if d == dv else f'{d}/{dv}'},{'causal' if causal else 'full'}", timing="graph" if tg is not None else "per-call",
                 tessera_us=round(tt, 1), tessera_tflops=tf(tt),
                 cudnn_us=round(t_cudnn, 1), cudnn_tflops=tf(t_cudnn), flash_us=round(t_flash, 1), flash_tflops=tf(t_flash),
                 vs_cudnn=round(t_cudnn / tt, 3), vs_flash=round(t_flash / tt, 3), max_abs_err=round(err, 4),
                 tessera_call_us=round(tc, 1), cudnn_call_us=round(t_cudnn_call, 1))
        if dv != d:
            r.update(efficient_us=round(t_efficient, 1), efficient_tflops=tf(t_efficient), vs_efficient=round(t_efficient / tt, 3))
        attn_rows.append(r)
        print(f"fmha {r['shape']:<22} {r['timing']:<8} tessera {tt:8.1f} us {r['tessera_tflops']} TFLOP/s | cuDNN {r['cudnn_tflops']} "
              f"({r['vs_cudnn']}x) | flash {r['flash_tflops']} ({r['vs_flash']}x) | per-call {tc:.1f} vs cuDNN {t_cudnn_call:.1f} us"
              + (f" | efficient {r['efficient_tflops']} ({r['vs_efficient']}x)" if dv != d else "") + f" | max err {err:.3g}")
        del q, k, v, o, sets, ref
        torch.cuda.empty_cache()

    # Attention backward (bf16): dq, dk, dv from the forward's o and lse, against SDPA's cuDNN and flash backward
    # (autograd through a forward run under that backend). FLOPs: the 5 products of the standard algorithm,
    # 10 B H S^2 D, halved when causal (tessera recomputes two more, not counted). Per-call event timings (the
    # calls take milliseconds); the gradients are compared with the flash backend's, relative to their largest.
    bwd_rows = []
    for (b, h, s, d, causal) in [] if not runs("backward") else [(16, 16, 1024, 128, False), (16, 16, 1024, 128, True), (4, 16, 4096, 128, False),
                                 (4, 16, 4096, 128, True), (1, 16, 16384, 128, True), (8, 16, 2048, 64, False),
                                 (8, 16, 2048, 64, True)]:
        q, k, v, d_o = (torch.randn(b, h, s, d, dtype=dt, device="cuda") for _ in range(4))
        o = torch.empty_like(q)
        lse = torch.empty(b, h, s, dtype=torch.float32, device="cuda")
        ts.call("tessera_fmha", q, k, v, o, lse, 0.0, int(causal), ctypes.c_int64(-1), 0.0)
        dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
        call = lambda: ts.call("tessera_fmha_backward", q, k, v, o, d_o, lse, dq, dk, dv, 0.0, int(causal), ctypes.c_int64(-1), 0.0)
        tt = bench(call, [()], warmup=2, reps=10)

        def sdpa_backward(backend):
            try:
                qg, kg, vg = (x.detach().requires_grad_() for x in (q, k, v))
                with sdpa_kernel(backend):
                    out = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal)
                fn = lambda: torch.autograd.grad(out, (qg, kg, vg), d_o, retain_graph=True)
                return bench(fn, [()], warmup=2, reps=10), fn()
            except RuntimeError as e:
                print(f"  {backend.name} backward: {str(e).splitlines()[0][:100]}")
                return float("nan"), None

        t_cudnn, _ = sdpa_backward(SDPBackend.CUDNN_ATTENTION)
        t_flash, grads = sdpa_backward(SDPBackend.FLASH_ATTENTION)
        errs = []
        if grads is not None:
            for got, want in zip((dq, dk, dv), grads):
                errs.append(float((got.float() - want.float()).abs().max() / want.float().abs().max()))
        flops = 10 * b * h * s * s * d / (2 if causal else 1)
        tf = lambda t: round(flops / t / 1e6, 1) if t == t else None
        r = dict(shape=f"{b},{h},{s},{d},{'causal' if causal else 'full'}", tessera_us=round(tt, 1), tessera_tflops=tf(tt),
                 cudnn_us=round(t_cudnn, 1), cudnn_tflops=tf(t_cudnn), flash_us=round(t_flash, 1), flash_tflops=tf(t_flash),
                 vs_cudnn=round(t_cudnn / tt, 3), vs_flash=round(t_flash / tt, 3),
                 rel_err_dq_dk_dv=[round(e, 4) for e in errs])
        bwd_rows.append(r)
        print(f"fmha_backward {r['shape']:<22} tessera {tt:9.1f} us {r['tessera_tflops']} TFLOP/s | cuDNN {r['cudnn_tflops']} "
              f"({r['vs_cudnn']}x) | flash {r['flash_tflops']} ({r['vs_flash']}x) | rel err dq,dk,dv {r['rel_err_dq_dk_dv']}")
        del q, k, v, d_o, o, lse, dq, dk, dv, grads
        torch.cuda.empty_cache()

    # Decode attention: one query token, GQA 32 / 8 heads, D 128; tessera reads a paged cache (page 16, pages in
    # a scrambled order), SDPA contiguous [B, 8, S, 128] K and V through its cuDNN and flash backends and its
    # default choice, all timed as CUDA graphs (device time). KV TB/s counts the K and V bytes read; the output is
    # compared with SDPA's.
    decode_rows = []
    hq, hkv, d, page = 32, 8, 128, 16

    sdpa = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)

    def sdpa_decode_time(backend, q, k, v):
        try:
            if backend is None:
                return bench_graph(sdpa, [(q, k, v)]) or bench(sdpa, [(q, k, v)], warmup=3, reps=20)
            with sdpa_kernel(backend):
                return bench_graph(sdpa, [(q, k, v)]) or bench(sdpa, [(q, k, v)], warmup=3, reps=20)
        except RuntimeError as e:
            print(f"  {backend.name if backend else 'default'}: {str(e).splitlines()[0][:100]}")
            return float("nan")

    for (b, s) in [(1, 4096), (1, 32768), (8, 8192), (32, 4096), (64, 8192)] if runs("decode") else []:
        pages = b * s // page
        kp, vp = (torch.randn(pages, page, hkv, d, dtype=dt, device="cuda") for _ in range(2))
        order = torch.randperm(pages, device="cuda").to(torch.int32)
        table = order.reshape(b, s // page)
        lens = torch.full((b,), s, dtype=torch.int32, device="cuda")
        q = torch.randn(b, 1, hq, d, dtype=dt, device="cuda")
        o = torch.empty_like(q)
        call = lambda q, o: ts.call("tessera_fmha_decode", q, kp, vp, table, lens, o, 0.0, ctypes.c_int64(-1), 0.0)
        tt = bench_graph(call, [(q, o)]) or bench(call, [(q, o)], warmup=3, reps=20)  # device time: no host overhead
        # The same cache as contiguous [B, Hkv, S, D] for SDPA.
        kt, vt = (x[order.long()].reshape(b, s, hkv, d).transpose(1, 2).contiguous() for x in (kp, vp))
        del kp, vp
        qt = q.transpose(1, 2)
        err = float((o.transpose(1, 2).float() - F.scaled_dot_product_attention(qt, kt, vt, enable_gqa=True).float()).abs().max())
        t_cudnn = sdpa_decode_time(SDPBackend.CUDNN_ATTENTION, qt, kt, vt)
        t_flash = sdpa_decode_time(SDPBackend.FLASH_ATTENTION, qt, kt, vt)
        t_default = sdpa_decode_time(None, qt, kt, vt)
        kv_bytes = 2 * b * s * hkv * d * 2
        tbs = lambda t: round(kv_bytes / t / 1e6, 3) if t == t else None
        ratio = lambda t: round(t / tt, 3) if t == t else None
        r = dict(shape=f"B {b}, S {s}", tessera_us=round(tt, 1), tessera_kv_tbs=tbs(tt),
                 pct_copy=round(100 * kv_bytes / tt / 1e6 / copy_bw, 1), cudnn_us=round(t_cudnn, 1), cudnn_kv_tbs=tbs(t_cudnn),
                 vs_cudnn=ratio(t_cudnn), flash_us=round(t_flash, 1), vs_flash=ratio(t_flash), sdpa_us=round(t_default, 1),
                 vs_sdpa=ratio(t_default), max_abs_err=round(err, 4))
        decode_rows.append(r)
        print(f"fmha_decode {r['shape']:<16} tessera {tt:8.1f} us {r['tessera_kv_tbs']} TB/s ({r['pct_copy']}% of copy) | "
              f"cuDNN {r['cudnn_us']} us ({r['vs_cudnn']}x) | flash {r['flash_us']} us ({r['vs_flash']}x) | "
              f"SDPA default {r['sdpa_us']} us ({r['vs_sdpa']}x) | max err {err:.3g}")
        del kt, vt, q, o, table, lens, order
        torch.cuda.empty_cache()

    # MLA decode (DeepSeek-V2/V3 absorbed: 128 heads, kv_lora_rank 512 + rope 64, one latent row a token, page 64,
    # scrambled pages) against the same attention in PyTorch: q @ latent^T, softmax in fp32, @ latent[..., :512]
    # on a contiguous latent cache (the eager form of absorbed MLA). SDPA has only its math backend for Dqk 576 !=
    # Dv 512: out of memory from B 64, 21.6 ms at B 1 x 32k (H200, session 30), so it is not timed.
    mla_rows = []
    heads, rank, rope, mpage = 128, 512, 64, 64
    for (b, s) in [(64, 4096), (64, 8192), (128, 4096), (128, 8192), (64, 32768), (1, 32768)] if runs("mla") else []:
        pages = b * s // mpage
        latent = torch.randn(pages, mpage, rank + rope, dtype=dt, device="cuda")
        order = torch.randperm(pages, device="cuda").to(torch.int32)
        table = order.reshape(b, s // mpage)
        lens = torch.full((b,), s, dtype=torch.int32, device="cuda")
        q = torch.randn(b, 1, heads, rank + rope, dtype=dt, device="cuda")
        o = torch.empty(b, 1, heads, rank, dtype=dt, device="cuda")
        scale = (rank + rope) ** -0.5
        call = lambda q, o: ts.call("tessera_mla_decode", q, latent, table, lens, o, ctypes.c_float(scale), ctypes.c_int64(-1), 0.0)
        tt = bench_graph(call, [(q, o)]) or bench(call, [(q, o)], warmup=3, reps=20)
        lat = latent[order.long()].reshape(b, s, rank + rope)
        del latent
        qh = q[:, 0]  # [b, heads, rank + rope]
        def torch_mla(qh, lat):
            p = torch.softmax((qh @ lat.transpose(1, 2)).float() * scale, dim=-1).to(dt)
            return p @ lat[..., :rank]
        want = torch_mla(qh, lat)
        err = float((o[:, 0].float() - want.float()).abs().max())
        try:
            t_torch = bench_graph(torch_mla, [(qh, lat)]) or bench(torch_mla, [(qh, lat)], warmup=3, reps=20)
        except RuntimeError as e:
            print(f"  torch MLA: {str(e).splitlines()[0][:100]}")
            t_torch = float("nan")
        flops = 2 * b * heads * s * (rank + rope + rank)
        latent_bytes = b * s * (rank + rope) * 2
        ratio = lambda t: round(t / tt, 3) if t == t else None
        r = dict(shape=f"B {b}, S {s}", tessera_us=round(tt, 1), tessera_tflops=round(flops / tt / 1e6, 1),
                 tessera_tbs=round(latent_bytes / tt / 1e6, 3), pct_copy=round(100 * latent_bytes / tt / 1e6 / copy_bw, 1),
                 torch_us=round(t_torch, 1), vs_torch=ratio(t_torch), max_abs_err=round(err, 4))
        mla_rows.append(r)
        print(f"mla_decode {r['shape']:<16} tessera {tt:8.1f} us {r['tessera_tflops']} TFLOP/s {r['tessera_tbs']} TB/s "
              f"({r['pct_copy']}% of copy) | torch {r['torch_us']} us ({r['vs_torch']}x) | max err {err:.3g}")
        del lat, q, o, table, lens, order, qh, want
        torch.cuda.empty_cache()

    date = datetime.date.today().isoformat()
    result = dict(gpu=gpu, date=date, torch=torch.__version__, copy_tbs=round(copy_bw, 3), rows=rows, matmul=mm_rows, attention=attn_rows, attention_backward=bwd_rows, decode=decode_rows, mla_decode=mla_rows)
    with open(os.path.join(args.out, "ops_bench.json"), "w") as f:
        json.dump(result, f, indent=1)
    with open(os.path.join(args.out, "ops_bench.md"), "w") as f:
        f.write(f"# Memory-bound ops, bf16, {gpu}, {date}\n\nCopy bandwidth {copy_bw:.2f} TB/s (read + write), PyTorch {torch.__version__}; "
                "medians of CUDA-event timings, inputs rotated past 3x L2.\n\n")
        f.write("Timing 'graph': device time per call from a CUDA graph of 20 calls (no host overhead, both sides); "
                "'per-call': one call between two events (host overhead included), used where capture is impossible. "
                "The last two columns are the per-call timings of both sides.\n\n")
        f.write("| op | shape | timing | tessera us | TB/s | % of copy | baseline | baseline us | speedup | per-call tessera us | per-call baseline us |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['op']} | {r['shape']} | {r['timing']} | {r['tessera_us']} | {r['tessera_tbs']} | {r['pct_copy']} | {r['baseline']} | "
                    f"{r['torch_us']} | {r['speedup']}x | {r['tessera_call_us']} | {r['torch_call_us']} |\n")
        if mm_rows:
            f.write("\n## Matmul, bf16, y = x @ w^T\n\n| M x N x K | tessera us | TFLOP/s | cuBLAS us | cuBLAS TFLOP/s | ratio |\n|---|---|---|---|---|---|\n")
            for r in mm_rows:
                f.write(f"| {r['shape']} | {r['tessera_us']} | {r['tessera_tflops']} | {r['cublas_us']} | {r['cublas_tflops']} | {r['ratio']}x |\n")
        f.write("\n## Attention forward, bf16, against PyTorch SDPA's cuDNN and flash backends\n\n"
                "Timing 'graph': device time per call from CUDA graphs of 8 calls, all three; the per-call columns time one "
                "call between two events (host overhead included).\n\n"
                "| B,H,S,D,mask | timing | tessera us | TFLOP/s | cuDNN TFLOP/s | vs cuDNN | flash TFLOP/s | vs flash | "
                "per-call tessera us | per-call cuDNN us | max abs err vs SDPA |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in attn_rows:
            f.write(f"| {r['shape']} | {r['timing']} | {r['tessera_us']} | {r['tessera_tflops']} | {r['cudnn_tflops']} | {r['vs_cudnn']}x | "
                    f"{r['flash_tflops']} | {r['vs_flash']}x | {r['tessera_call_us']} | {r['cudnn_call_us']} | {r['max_abs_err']} |\n")
        f.write("\n## Attention backward, bf16, against PyTorch SDPA's cuDNN and flash backward\n\n"
                "Per-call CUDA-event medians; TFLOP/s counts 10 B H S^2 D (halved when causal); errors are max |diff| over "
                "max |flash's gradient|.\n\n| B,H,S,D,mask | tessera us | TFLOP/s | cuDNN TFLOP/s | vs cuDNN | flash TFLOP/s | "
                "vs flash | rel err dq, dk, dv |\n|---|---|---|---|---|---|---|---|\n")
        for r in bwd_rows:
            f.write(f"| {r['shape']} | {r['tessera_us']} | {r['tessera_tflops']} | {r['cudnn_tflops']} | {r['vs_cudnn']}x | "
                    f"{r['flash_tflops']} | {r['vs_flash']}x | {r['rel_err_dq_dk_dv']} |\n")
        f.write("\n## Decode attention, bf16, GQA 32/8, D 128 (tessera: paged cache, page 16, scrambled pages; SDPA: "
                "contiguous K/V)\n\n| B, S | tessera us | KV TB/s | % of copy | cuDNN us | vs cuDNN | flash us | vs flash | "
                "SDPA default us | vs default | max abs err |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in decode_rows:
            f.write(f"| {r['shape']} | {r['tessera_us']} | {r['tessera_kv_tbs']} | {r['pct_copy']} | {r['cudnn_us']} | "
                    f"{r['vs_cudnn']}x | {r['flash_us']} | {r['vs_flash']}x | {r['sdpa_us']} | {r['vs_sdpa']}x | {r['max_abs_err']} |\n")
        f.write("\n## MLA decode, bf16, 128 heads, latent 512 + 64, page 64 (tessera: paged, scrambled pages; PyTorch: "
                "contiguous latent)\n\nTFLOP/s counts 2 B H S (576 + 512); TB/s the latent bytes.\n\n| B, S | tessera us | "
                "TFLOP/s | latent TB/s | % of copy | torch us | vs torch | max abs err |\n"
                "|---|---|---|---|---|---|---|---|\n")
        for r in mla_rows:
            f.write(f"| {r['shape']} | {r['tessera_us']} | {r['tessera_tflops']} | {r['tessera_tbs']} | {r['pct_copy']} | "
                    f"{r['torch_us']} | {r['vs_torch']}x | {r['max_abs_err']} |\n")

if __name__ == "__main__":
    main()
