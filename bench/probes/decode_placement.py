#!/usr/bin/env python3
"""Does where decode attention's buffers lie decide its time? (session 46, the GPU machine)

    python3 bench/probes/decode_placement.py --lib .device/bin/libtessera.so

`tessera bench fmha_decode` at B 1 x 2112 keys took ~13 us for some sets of buffers and ~15-18 us for others,
in the same process (session 46 run 4). Here each call is timed cold, once per flush of the L2 (a read of a
buffer twice its size), with CUDA events around the call alone, the GPU held busy first so that the host has
queued the call before it runs (host time excluded); medians over `--reps` calls:
  A. 16 key/value caches, each allocated anew (a random gap before it), the same query, output, table, lengths;
  B. the first cache with 8 fresh sets of query, output, block table and lengths;
  C. as A with the pages in order (table = arange) instead of a random permutation.
GQA 32/8, D 128, bf16, 16-token pages.
"""
import argparse
import ctypes
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tessera_ctypes import Tessera  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--b", type=int, default=1)
    ap.add_argument("--s", type=int, default=2112)
    ap.add_argument("--reps", type=int, default=15)
    a = ap.parse_args()
    ts = Tessera(a.lib)
    torch.manual_seed(0)
    hq, hkv, d, page, dt = 32, 8, 128, 16, torch.bfloat16
    pages = a.b * a.s // page
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.randn(2 * l2 // 4, device="cuda")
    keep = []

    def cache():
        keep.append(torch.empty(int(torch.randint(1, 4096, (1,))) * 512, dtype=torch.uint8, device="cuda"))
        return tuple(torch.randn(pages, page, hkv, d, dtype=dt, device="cuda") for _ in range(2))

    def side(ordered=False):
        keep.append(torch.empty(int(torch.randint(1, 4096, (1,))) * 512, dtype=torch.uint8, device="cuda"))
        order = torch.arange(pages, device="cuda") if ordered else torch.randperm(pages, device="cuda")
        table = order.to(torch.int32).reshape(a.b, a.s // page)
        lens = torch.full((a.b,), a.s, dtype=torch.int32, device="cuda")
        q = torch.randn(a.b, 1, hq, d, dtype=dt, device="cuda")
        return q, torch.empty_like(q), table, lens

    def cold_us(kv, sd):
        kp, vp = kv
        q, o, table, lens = sd
        call = lambda: ts.call("tessera_fmha_decode", q, kp, vp, table, lens, o, 0.0, ctypes.c_int64(-1), 0.0)
        for _ in range(3):
            call()
        times = []
        for _ in range(a.reps):
            torch.cuda._sleep(400_000)  # ~200 us of GPU time, so that the host has queued the call before it runs
            flush.max()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            call()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1e3)
        return statistics.median(times), min(times), max(times)

    mb = lambda t: f"{t.data_ptr() % (32 << 20) / (1 << 20):6.2f}"
    s0 = side()
    caches = [cache() for _ in range(16)]
    print(f"A. B {a.b} S {a.s}: 16 caches, one query/table set (us: median min max; k, v address mod 32 MiB in MiB)")
    for i, kv in enumerate(caches):
        med, lo, hi = cold_us(kv, s0)
        print(f"  cache {i:2d}: {med:6.2f} {lo:6.2f} {hi:6.2f}   k {mb(kv[0])} v {mb(kv[1])}")
    print("B. cache 0 with 8 query/output/table/lengths sets")
    for j in range(8):
        sd = side()
        med, lo, hi = cold_us(caches[0], sd)
        print(f"  set {j}: {med:6.2f} {lo:6.2f} {hi:6.2f}   q {mb(sd[0])} o {mb(sd[1])} table {mb(sd[2])}")
    print("C. the 16 caches with the pages in order")
    s1 = side(ordered=True)
    for i, kv in enumerate(caches):
        med, lo, hi = cold_us(kv, s1)
        print(f"  cache {i:2d}: {med:6.2f} {lo:6.2f} {hi:6.2f}")


if __name__ == "__main__":
    main()
