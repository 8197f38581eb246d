#!/usr/bin/env python3
"""Session 67, run 9: decode attention with the configuration named in TESSERA_AUTOTUNE_FORCE against a plain
fp32 reference, paged cache of scrambled 16-token pages, sequence lengths 1, 17, 1000, 4095 (GQA 32/8, D 128,
bf16). Prints the largest error."""
import ctypes
import sys

import torch

sys.path.insert(0, "bench")
from tessera_ctypes import Tessera

ts = Tessera(sys.argv[1])
torch.manual_seed(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
hq, hkv, d, page, dt = 32, 8, 128, 16, torch.bfloat16
lens_list = [1, 17, 1000, 4095]
b, per_seq = len(lens_list), 4096 // page
pages = b * per_seq
kp, vp = (torch.randn(pages, page, hkv, d, dtype=dt, device="cuda") for _ in range(2))
table = torch.randperm(pages, device="cuda").to(torch.int32).reshape(b, per_seq)
lens = torch.tensor(lens_list, dtype=torch.int32, device="cuda")
q = torch.randn(b, 1, hq, d, dtype=dt, device="cuda")
o = torch.full_like(q, float("nan"))
ts.call("tessera_fmha_decode", q, kp, vp, table, lens, o, 0.0, ctypes.c_int64(-1), 0.0)
torch.cuda.synchronize()
worst = 0.0
for i, n in enumerate(lens_list):
    k = kp[table[i].long()].reshape(-1, hkv, d)[:n].float()
    v = vp[table[i].long()].reshape(-1, hkv, d)[:n].float()
    qi = q[i, 0].float().reshape(hkv, hq // hkv, d)
    s = torch.einsum("hgd,nhd->hgn", qi, k) / d ** 0.5
    ref = torch.einsum("hgn,nhd->hgd", s.softmax(-1), v).reshape(hq, d)
    worst = max(worst, (o[i, 0].float() - ref).abs().max().item())
print(f"max abs error {worst:.4g} ({'ok' if worst < 2e-2 else 'WRONG'})")
