# Usage, from the repository root on the GPU machine: python3 bench/results/2026-11-24-h200-session11/percall_probe.py --lib PATH/libtessera.so
"""Where does tessera's per-call fmha time go? Host time of one call, per-call event time (GPU idle before),
back-to-back stream time, graph time; the same for SDPA cuDNN."""
import argparse, ctypes, statistics, sys, time, os
import torch
import torch.nn.functional as F
sys.path.insert(0, "bench")
from tessera_ctypes import Tessera
from torch.nn.attention import SDPBackend, sdpa_kernel

ap = argparse.ArgumentParser(); ap.add_argument("--lib", required=True); args = ap.parse_args()
ts = Tessera(args.lib)

def per_call(fn, reps=30):
    for _ in range(3): fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); e.synchronize(); out.append(s.elapsed_time(e) * 1e3)
    return statistics.median(out)

def per_call_sleep(fn, reps=20):
    # the GPU busy with a sleep kernel first, so host overhead hides behind it: device time of the call alone
    out = []
    for _ in range(reps):
        torch.cuda._sleep(2_000_000)
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); e.synchronize(); out.append(s.elapsed_time(e) * 1e3)
    return statistics.median(out)

def back_to_back(fn, n=20):
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(2_000_000)
    s.record()
    for _ in range(n): fn()
    e.record(); e.synchronize()
    return s.elapsed_time(e) * 1e3 / n

def host_time(fn, n=50):
    torch.cuda.synchronize()
    torch.cuda._sleep(50_000_000)  # keep the queue busy: launches are async
    t0 = time.perf_counter()
    for _ in range(n): fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / n * 1e6

for (b, h, s, d, causal) in [(16, 16, 1024, 128, False), (1, 16, 16384, 128, True)]:
    q, k, v = (torch.randn(b, h, s, d, dtype=torch.bfloat16, device="cuda") for _ in range(3))
    o = torch.empty_like(q)
    call = lambda: ts.call("tessera_fmha", q, k, v, o, None, 0.0, int(causal), ctypes.c_int64(-1), 0.0)
    call(); torch.cuda.synchronize()
    def cudnn():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    cudnn(); torch.cuda.synchronize()
    flops = 4 * b * h * s * s * d / (2 if causal else 1)
    for name, fn in [("tessera", call), ("cudnn", cudnn)]:
        hc = host_time(fn); pc = per_call(fn); ps = per_call_sleep(fn); bb = back_to_back(fn)
        print(f"{b},{h},{s},{d},{'causal' if causal else 'full'} {name:8s} host {hc:7.1f} us | per-call {pc:8.1f} us "
              f"({flops/pc/1e6:5.0f} TF) | behind-sleep {ps:8.1f} us ({flops/ps/1e6:5.0f} TF) | back-to-back {bb:8.1f} us ({flops/bb/1e6:5.0f} TF)", flush=True)

# Host cost of tiny calls: where does the per-call host time go?
x = torch.randn(4, 4096, dtype=torch.bfloat16, device="cuda"); w = torch.randn(4096, dtype=torch.bfloat16, device="cuda")
y = torch.empty_like(x)
q1, k1, v1 = (torch.randn(1, 1, 64, 128, dtype=torch.bfloat16, device="cuda") for _ in range(3)); o1 = torch.empty_like(q1)
a = torch.randn(16, 256, dtype=torch.bfloat16, device="cuda"); bm = torch.randn(256, 256, dtype=torch.bfloat16, device="cuda"); c = torch.empty(16, 256, dtype=torch.bfloat16, device="cuda")
tests = {
    "ctypes tessera_version": lambda: ts.lib.tessera_version(),
    "rms_norm 4x4096": lambda: ts.call("tessera_rms_norm", x, w, y, 1e-6),
    "fmha 1x1x64x128": lambda: ts.call("tessera_fmha", q1, k1, v1, o1, None, 0.0, 0, ctypes.c_int64(-1), 0.0),
    "fmha 1x1x64x128 causal": lambda: ts.call("tessera_fmha", q1, k1, v1, o1, None, 0.0, 1, ctypes.c_int64(-1), 0.0),
    "matmul 16x256x256": lambda: ts.call("tessera_matmul", a, bm, c, 0, None, 0, 1.0, None),
    "torch rms_norm": lambda: F.rms_norm(x, (4096,), w, 1e-6),
}
for name, fn in tests.items():
    fn(); torch.cuda.synchronize()
    print(f"host {name:28s} {host_time(fn, 200):8.1f} us", flush=True)
