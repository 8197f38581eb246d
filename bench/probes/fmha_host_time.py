"""Host time per call of tessera_fmha from Python (the bench ctypes wrapper) against SDPA's cuDNN backend, at a
small shape (the GPU is not the bound) and at 16 x 16 x 1k x 128 (session 38). Run on the GPU machine from the
repository root: python3 bench/probes/fmha_host_time.py .device/bin/libtessera.so
"""
import ctypes, sys, time, torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
sys.path.insert(0, "bench")
from tessera_ctypes import Tessera
ts = Tessera(sys.argv[1])
for (b, h, s, d) in [(1, 2, 256, 128), (16, 16, 1024, 128)]:
    q, k, v = (torch.randn(b, h, s, d, dtype=torch.bfloat16, device="cuda") for _ in range(3))
    o = torch.empty_like(q)
    call = lambda: ts.call("tessera_fmha", q, k, v, o, None, 0.0, 0, ctypes.c_int64(-1), 0.0)
    call(); torch.cuda.synchronize()
    def host(f, n=300):
        ts_ = []
        for _ in range(n):
            torch.cuda.synchronize(); t = time.perf_counter(); f(); ts_.append((time.perf_counter() - t) * 1e6)
        ts_.sort(); return ts_[n // 2]
    def sd():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            F.scaled_dot_product_attention(q, k, v)
    sd(); torch.cuda.synchronize()
    print(f"B{b} H{h} S{s} D{d}: tessera_fmha host {host(call):.1f} us, SDPA cuDNN host {host(sd):.1f} us")
