#!/usr/bin/env python3
"""Where the engine's time goes, kernel by kernel (the GPU machine):

    python3 bench/profile_model.py --tessera .device/bin/tessera --model bench/models/llama-3.1-8b \\
        --prompt-len 2048 --out prefill_profile.md

Runs `tessera bench-model --random-weights` (one batch size, one decode step, no CUDA graph, the autotuner's
heuristic choices) under Nsight Compute collecting only each kernel's duration, and writes the total time per
kernel (its template arguments kept: they name the configuration), largest first, as markdown. Prefill dominates
a run with one decode step; the table says how much of it each kernel takes.

With --decode-steps K the table is one decode step's instead: a second run takes K more decode steps, and the
difference of the two runs' per-kernel totals, over K, is what a decode step spends (kernel by kernel, without
the CUDA graph, so launch gaps are not in it).
"""
import argparse
import collections
import csv
import io
import os
import re
import subprocess
import sys

UNITS = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "s": 1e6, "second": 1e6}


def short_name(name):
    name = re.sub(r"^void ", "", name)
    m = re.match(r"tessera::tile::cuda::kernel_entry<(.*)>\(.*\)$", name)
    if m:
        name = m.group(1)
    name = name.replace("tessera::ops::kernels::", "").replace("tessera::", "")
    return name[:160]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tessera", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--prompt-len", type=int, default=2048)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--ncu", default="ncu")
    p.add_argument("--decode-steps", type=int, default=0, help="report one decode step, averaged over this many")
    p.add_argument("--tuned", action="store_true", help="keep the autotuner on (its cache filled beforehand)")
    p.add_argument("--out", required=True)
    a = p.parse_args()

    def profile(steps, log):
        cmd = [a.ncu, "--csv", "--log-file", log, "--metrics", "gpu__time_duration.sum", "--cache-control", "none",
               "--clock-control", "none", a.tessera, "bench-model", "--model", a.model, "--random-weights", "--device",
               "cuda", "--prompt-len", str(a.prompt_len), "--batch", str(a.batch), "--decode-steps", str(steps)]
        env = dict(os.environ) if a.tuned else dict(os.environ, TESSERA_AUTOTUNE="0")
        run = subprocess.run(cmd, env=env, capture_output=True, text=True)
        print(run.stdout[-3000:])
        if run.returncode != 0:
            print(run.stderr[-3000:], file=sys.stderr)
        return kernel_totals(log)

    base = profile(1, a.out + ".ncu.csv")
    if a.decode_steps > 0:
        more = profile(1 + a.decode_steps, a.out + ".more.ncu.csv")
        step = {}
        for name, (us, calls) in more.items():
            us0, calls0 = base.get(name, (0.0, 0))
            if calls > calls0:
                step[name] = ((us - us0) / a.decode_steps, (calls - calls0) / a.decode_steps)
        configs = "tuned" if a.tuned else "heuristic"
        write_table(step, a.out, f"one decode step at prompt {a.prompt_len}, batch {a.batch}, the mean of "
                                 f"{a.decode_steps}, {configs} configurations", "a `tessera bench-model` decode step")
    else:
        write_table(base, a.out, f"prompt {a.prompt_len}, batch {a.batch}, 1 decode step")
    print(open(a.out).read()[:6000])


def kernel_totals(log):
    """{kernel: (total us, calls)} from an Nsight Compute CSV log."""
    text = open(log).read() if os.path.exists(log) else ""
    start = text.find('"ID"')
    if start < 0:
        sys.exit("no kernel records in the Nsight Compute log " + log)
    total = collections.defaultdict(float)
    calls = collections.Counter()
    for row in csv.DictReader(io.StringIO(text[start:])):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        name = short_name(row["Kernel Name"])
        total[name] += float(row["Metric Value"].replace(",", "")) * UNITS[row["Metric Unit"]]
        calls[name] += 1
    return {name: (us, calls[name]) for name, us in total.items()}


def write_table(totals, out, what, run="`tessera bench-model`"):
    """Per-kernel totals {kernel: (us, calls)} as a markdown table."""
    total = {name: us for name, (us, _) in totals.items()}
    calls = {name: c for name, (_, c) in totals.items()}
    grand = sum(total.values())
    with open(out, "w") as f:
        f.write(f"# Kernel time of {run} ({what}), {grand / 1e3:.2f} ms in {sum(calls.values()):.0f} kernels\n\n"
                "| kernel | calls | total ms | us per call | share |\n|---|---|---|---|---|\n")
        for name, us in sorted(total.items(), key=lambda kv: -kv[1]):
            f.write(f"| `{name}` | {calls[name]:g} | {us / 1e3:.3f} | {us / calls[name]:.1f} | {100 * us / grand:.1f}% |\n")

if __name__ == "__main__":
    main()
