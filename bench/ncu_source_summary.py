#!/usr/bin/env python3
"""Where a kernel's instructions and stall samples go, from Nsight Compute's per-instruction source page:

    ncu --kernel-name-base mangled -k regex:FmhaStaged -c 1 --set full --import-source no -o k python3 ...
    ncu -i k.ncu-rep --page source --csv --print-source sass > k.csv
    python3 bench/ncu_source_summary.py k.csv --warps 16384 [--stalls]

Consecutive SASS instructions executed equally often are one region (a straight stretch of code: a loop body,
a prologue, an epilogue). Each region is printed with its executions per warp (instructions executed over
--warps, e.g. blocks x consumer warps), its length, the instructions a warp spends in it, its warp stall
samples and its most frequent opcodes. --stalls adds the kernel's stall reasons over all samples.
"""
import argparse
import collections
import csv


def read(path):
    rows = list(csv.reader(open(path)))
    header = next(i for i, r in enumerate(rows) if "Address" in r and "Source" in r)
    hdr, data = rows[header], rows[header + 1:]
    col = {name: hdr.index(name) for name in ("Source", "Instructions Executed", "Warp Stall Sampling (All Samples)")}
    stalls = [c for c in hdr if c.startswith("stall_") and "Not Issued" not in c]
    out = []
    for r in data:
        try:
            out.append((r[col["Source"]].strip(), int(r[col["Instructions Executed"]] or 0),
                        int(r[col["Warp Stall Sampling (All Samples)"]] or 0),
                        {s: int(r[hdr.index(s)] or 0) for s in stalls}))
        except (ValueError, IndexError):
            continue
    return out


def opcode(source):
    words = source.split()
    word = words[1] if words and words[0].startswith("@") and len(words) > 1 else (words[0] if words else "")
    return word.split(".")[0]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv")
    p.add_argument("--warps", type=float, default=1.0, help="divide execution counts by this (warps of the role)")
    p.add_argument("--min-samples", type=int, default=0, help="print only regions with at least this many samples")
    p.add_argument("--stalls", action="store_true")
    a = p.parse_args()
    rows = read(a.csv)
    regions = []
    for i, (src, executed, samples, _) in enumerate(rows):
        if executed == 0 and samples == 0:
            continue
        if regions and regions[-1]["executed"] == executed and regions[-1]["last"] == i - 1:
            g = regions[-1]
        else:
            g = {"first": i, "executed": executed, "length": 0, "samples": 0, "ops": collections.Counter()}
            regions.append(g)
        g["last"] = i
        g["length"] += 1
        g["samples"] += samples
        g["ops"][opcode(src)] += 1
    total_samples = sum(g["samples"] for g in regions) or 1
    print(f"{'lines':>11} {'per warp':>9} {'length':>6} {'instr/warp':>10} {'samples':>8}  opcodes")
    for g in regions:
        if g["samples"] < a.min_samples:
            continue
        per = g["executed"] / a.warps
        ops = ", ".join(f"{k} {v}" for k, v in g["ops"].most_common(6))
        print(f"{g['first']:5d}-{g['last']:5d} {per:9.2f} {g['length']:6d} {per * g['length']:10.1f} "
              f"{g['samples']:8d} ({100 * g['samples'] / total_samples:4.1f}%)  {ops}")
    print(f"instructions a warp: {sum(g['executed'] * g['length'] for g in regions) / a.warps:.0f}, "
          f"samples: {total_samples}")
    if a.stalls:
        reasons = collections.Counter()
        for _, _, _, s in rows:
            reasons.update(s)
        n = sum(reasons.values()) or 1
        print("stalls: " + ", ".join(f"{k[6:]} {100 * v / n:.0f}%" for k, v in reasons.most_common(10)))


if __name__ == "__main__":
    main()
