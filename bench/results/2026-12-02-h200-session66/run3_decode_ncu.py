#!/usr/bin/env python3
"""Session 66, run 3: one tuned tessera fmha_decode call and one cuDNN SDPA call on the same cache (contiguous,
B x S x GQA 32/8 x D 128), between cudaProfilerStart/Stop, for `ncu --profile-from-start off`."""
import ctypes
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, "bench")
from tessera_ctypes import Tessera

lib, b, s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ts = Tessera(lib)
hq, hkv, d, dt = 32, 8, 128, torch.bfloat16
kp, vp = (torch.randn(b, s, hkv, d, dtype=dt, device="cuda") for _ in range(2))
lens = torch.full((b,), s, dtype=torch.int32, device="cuda")
q = torch.randn(b, 1, hq, d, dtype=dt, device="cuda")
o = torch.empty_like(q)
kt, vt = (x.transpose(1, 2).contiguous() for x in (kp, vp))
qt = q.transpose(1, 2)
call = lambda: ts.call("tessera_fmha_decode", q, kp, vp, None, lens, o, 0.0, ctypes.c_int64(-1), 0.0)
with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    for _ in range(3):
        call()
        F.scaled_dot_product_attention(qt, kt, vt, enable_gqa=True)
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    call()
    F.scaled_dot_product_attention(qt, kt, vt, enable_gqa=True)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
print("done")
