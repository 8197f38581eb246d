#!/usr/bin/env python3
"""Session 64's run 1 (then at bench/matmul_ab.py; bench/matmul_bench.py --rounds N --label L does the same since).

The matmul sweep of issue 3 against cuBLAS (through torch) in one process, for comparing builds: run it once
per build, alternating builds, with one TESSERA_CACHE_DIR shared by all runs so that every build runs the same
tuned configurations (the first run tunes, the others read its choices).

    python3 bench/matmul_ab.py --lib build/libtessera.so [--shapes 4096x4096x4096,...] [--rounds 2]

y[M, N] = x[M, K] @ w[N, K]^T in bf16, random inputs rotated over copies that together exceed L2 three times.
Each time is the median over replays of a CUDA graph of back-to-back calls; tessera and cuBLAS are timed in
turns, `rounds` times each, and the lower of each side's medians is kept (clocks and the neighbours' load move
both between turns). Prints one line per shape and the median ratio.
"""
import argparse
import math
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))  # bench/
from gpu_bench import bench_graph  # noqa: E402
from tessera_ctypes import Tessera  # noqa: E402

SWEEP = ["1024x1024x1024", "2048x2048x2048", "4096x4096x4096", "8192x8192x8192"] + [
    f"{m}x{n}x{k}" for m in (1, 16, 128, 2048, 4096) for (n, k) in ((4096, 4096), (14336, 4096), (4096, 14336), (128256, 4096))]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", required=True)
    p.add_argument("--shapes", default=",".join(SWEEP))
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--label", default="")
    a = p.parse_args()
    ts = Tessera(a.lib)
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    ratios = []
    for shape in a.shapes.split(","):
        m, n, k = (int(v) for v in shape.split("x"))
        copies = max(2, math.ceil(3 * l2 / (2 * (m * k + n * k + m * n))))
        sets = [(torch.randn(m, k, dtype=torch.bfloat16, device="cuda"),
                 torch.randn(n, k, dtype=torch.bfloat16, device="cuda") * 0.02,
                 torch.empty(m, n, dtype=torch.bfloat16, device="cuda")) for _ in range(copies)]
        ours = lambda x, w, y: ts.call("tessera_matmul", x, w, y, 0, None, 0, 1.0, None)  # noqa: E731
        theirs = lambda x, w, y: torch.matmul(x, w.t(), out=y)  # noqa: E731
        ours(*sets[0])  # the first call tunes (or reads the shared cache)
        x, w, y = sets[0]
        want = x.float() @ w.float().t()
        err = ((y.float() - want).norm() / want.norm()).item()
        guess_us = max(2 * m * n * k / 600e6, 2 * (m * k + n * k + m * n) / 3.5e6, 3.0)  # 600 TFLOP/s, 3.5 TB/s
        reps = max(4, min(50, int(2000 / guess_us)))  # graphs of about 2 ms
        t_ours, t_theirs = [], []
        for _ in range(a.rounds):
            t_ours.append(bench_graph(ours, sets, reps))
            t_theirs.append(bench_graph(theirs, sets, reps))
        to, tc = min(t_ours), min(t_theirs)
        ratios.append(tc / to)
        print(f"{a.label}matmul {shape:<18} tessera {to:9.2f} us  cuBLAS {tc:9.2f} us  ratio {tc / to:.3f}x  "
              f"rel.err {err:.1e}  (rounds: {' '.join(f'{t:.1f}' for t in t_ours)} / {' '.join(f'{t:.1f}' for t in t_theirs)})",
              flush=True)
        del sets, want
        torch.cuda.empty_cache()
    print(f"{a.label}median ratio {statistics.median(ratios):.4f}x over {len(ratios)} shapes, lowest {min(ratios):.3f}x")


if __name__ == "__main__":
    main()
