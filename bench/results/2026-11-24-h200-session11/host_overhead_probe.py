# Usage, from the repository root on the GPU machine: python3 bench/results/2026-11-24-h200-session11/host_overhead_probe.py --lib PATH/libtessera.so
"""Host time of one tessera C API call: the ctypes wrapper, the raw call with prebuilt arguments, with the GPU busy and idle, against PyTorch."""
import argparse, ctypes, sys, time
import torch
sys.path.insert(0, "bench")
from tessera_ctypes import Tessera
ap = argparse.ArgumentParser(); ap.add_argument("--lib", required=True); args = ap.parse_args()
ts = Tessera(args.lib)
x = torch.randn(4, 4096, dtype=torch.bfloat16, device="cuda"); w = torch.randn(4096, dtype=torch.bfloat16, device="cuda")
y = torch.empty_like(x)
def host_time(fn, n=300):
    torch.cuda.synchronize(); torch.cuda._sleep(100_000_000)
    t0 = time.perf_counter()
    for _ in range(n): fn()
    t1 = time.perf_counter(); torch.cuda.synchronize()
    return (t1 - t0) / n * 1e6
keep = []
def prebuilt():
    conv = [ts.tensor(x), ts.tensor(w), ts.tensor(y), ctypes.c_float(1e-6)]
    keep.append(conv)
    return conv, ts.options()
conv, opts = prebuilt()
fn = ts.lib.tessera_rms_norm
print(f"wrapper ts.call            {host_time(lambda: ts.call('tessera_rms_norm', x, w, y, 1e-6)):8.1f} us", flush=True)
print(f"raw call, prebuilt args    {host_time(lambda: fn(*conv, opts)):8.1f} us", flush=True)
print(f"ts.tensor(x) x3            {host_time(lambda: (ts.tensor(x), ts.tensor(w), ts.tensor(y))):8.1f} us", flush=True)
ts._keep.clear()
print(f"ts.options()               {host_time(lambda: ts.options()):8.1f} us", flush=True)
null_opts = None
print(f"raw call, options NULL     {host_time(lambda: fn(*conv, null_opts)):8.1f} us", flush=True)
import os
for k in ["TESSERA_PDL"]:
    print(k, os.environ.get(k))

def host_idle(fn, n=200):
    out = []
    for _ in range(n):
        torch.cuda.synchronize()
        t0 = time.perf_counter(); fn(); out.append(time.perf_counter() - t0)
    out.sort(); return out[len(out) // 2] * 1e6
import torch.nn.functional as F
print(f"idle GPU: wrapper ts.call  {host_idle(lambda: ts.call('tessera_rms_norm', x, w, y, 1e-6)):8.1f} us", flush=True)
print(f"idle GPU: raw call         {host_idle(lambda: fn(*conv, opts)):8.1f} us", flush=True)
print(f"idle GPU: torch rms_norm   {host_idle(lambda: F.rms_norm(x, (4096,), w, 1e-6)):8.1f} us", flush=True)
q, k, v = (torch.randn(16, 16, 1024, 128, dtype=torch.bfloat16, device="cuda") for _ in range(3)); o = torch.empty_like(q)
fm = lambda: ts.call("tessera_fmha", q, k, v, o, None, 0.0, 0, ctypes.c_int64(-1), 0.0)
fm(); torch.cuda.synchronize()
print(f"idle GPU: fmha ts.call     {host_idle(fm, 50):8.1f} us", flush=True)
from torch.nn.attention import SDPBackend, sdpa_kernel
def cud():
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        return F.scaled_dot_product_attention(q, k, v)
cud(); torch.cuda.synchronize()
print(f"idle GPU: cudnn sdpa       {host_idle(cud, 50):8.1f} us", flush=True)
