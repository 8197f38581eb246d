#!/usr/bin/env python3
"""Where a traced stretch of GPU work spends its time: reads the .tsv a kernel trace writes
(tessera/tile/cuda/trace.h; `tessera bench-model --trace FILE` in a build with -DTESSERA_TILE_TRACE=ON) and
splits the last burst of launches (the last decode step: bursts are separated by idle gaps) into what each
launch adds to the burst's length.

A launch adds the time from its predecessor's last block ending to its own last block ending. That is cut
in two: `dependency`, from the predecessor's end until this launch's first block is ready (its
dependent-launch wait returned), and `run`, from there to its last block's end. `spread` is how far apart
its blocks end (the part of `run` in which the grid is not full). For staged kernels, `--launches` also
shows the pipeline's marks, medians over the blocks, after each block was ready: the producer's first copies
issued, the first stage full at a consumer, the last stage released (the k loop done), the first consumer's
body returned (its epilogue done).

`--around FAMILY` prints, instead, the launches around one launch of that kernel family (e.g. FmhaDecodeSliced;
`--occurrence`, default the middle one): each launch's first and last block start, ready and end, from the
first of them, to read a chain of dependent launches (who starts before whom ends).

usage: trace_summary.py FILE.tsv [--gap-us 30] [--launches | --around FAMILY [--occurrence I] [--before 2] [--after 4]]
"""
import argparse
import collections
import csv


def read(path):
    with open(path) as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r["ran"] != "0"]
    for r in rows:
        for k in ("first_start", "last_start", "first_ready", "last_ready", "first_end", "last_end"):
            r[k] = float(r[k])
        r["blocks"] = int(r["blocks"])
    return sorted(rows, key=lambda r: r["first_start"])


def last_burst(rows, gap_us):
    start = 0
    end_so_far = rows[0]["last_end"]
    for i in range(1, len(rows)):
        if rows[i]["first_start"] - end_so_far > gap_us:
            start = i
        end_so_far = max(end_so_far, rows[i]["last_end"])
    return rows[start:]


def family(name):
    for wrapper in ("tile::MinBlocksPerSm<",):  # launch wrappers: the kernel is their first argument
        if name.startswith(wrapper):
            name = name[len(wrapper):]
    return name.split("<")[0]


def print_around(burst, a):
    hits = [i for i, r in enumerate(burst) if family(r["kernel"]) == a.around]
    if not hits:
        raise SystemExit(f"no launch of {a.around} in the last burst")
    k = a.occurrence if a.occurrence >= 0 else len(hits) // 2
    if k >= len(hits):
        raise SystemExit(f"--occurrence {k}: the last burst has {len(hits)} launches of {a.around} (0 to {len(hits) - 1})")
    i = hits[k]
    window = burst[max(0, i - a.before):i + a.after + 1]
    t0 = window[0]["first_start"]
    span = lambda r, k: f"{r['first_' + k] - t0:8.2f} {r['last_' + k] - t0:8.2f}"
    print(f"launch {k + 1} of {len(hits)} of {a.around}; us from the first block start of the first row")
    print(f"{'start':>8} {'(last)':>8} {'ready':>8} {'(last)':>8} {'end':>8} {'(last)':>8} {'blocks':>6}  kernel")
    for r in window:
        print(f"{span(r, 'start')} {span(r, 'ready')} {span(r, 'end')} {r['blocks']:6d}  {r['kernel'][:100]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tsv")
    ap.add_argument("--gap-us", type=float, default=30.0, help="idle time that separates bursts (default 30 us)")
    ap.add_argument("--launches", action="store_true", help="print every launch of the burst")
    ap.add_argument("--around", metavar="FAMILY", help="print the launches around one launch of this kernel family")
    ap.add_argument("--occurrence", type=int, default=-1, help="which launch of FAMILY (default: the middle one)")
    ap.add_argument("--before", type=int, default=2, help="launches shown before it (default 2)")
    ap.add_argument("--after", type=int, default=4, help="launches shown after it (default 4)")
    a = ap.parse_args()
    burst = last_burst(read(a.tsv), a.gap_us)
    if a.around:
        return print_around(burst, a)
    t0 = burst[0]["first_start"]
    prev_end = burst[0]["first_ready"]
    per = collections.OrderedDict()
    if a.launches:
        print(f"{'start':>9} {'dep':>7} {'run':>8} {'spread':>7} {'blocks':>6} {'issued':>7} {'full':>7} {'loop':>7} {'cons':>7}  kernel")
    for r in burst:
        end = max(prev_end, r["last_end"])
        dependency = max(0.0, min(r["first_ready"], end) - prev_end)
        run = end - prev_end - dependency
        spread = r["last_end"] - r["first_end"]
        f = per.setdefault(family(r["kernel"]), [0, 0.0, 0.0, 0.0])
        f[0] += 1
        f[1] += dependency
        f[2] += run
        f[3] += spread
        if a.launches:
            marks = " ".join(f"{float(r[m]):7.2f}" if r.get(m) else f"{'':7}" for m in ("copy_issued", "first_full", "loop_done", "consumer_done"))
            print(f"{r['first_start'] - t0:9.2f} {dependency:7.2f} {run:8.2f} {spread:7.2f} {r['blocks']:6d} {marks}  {r['kernel'][:110]}")
        prev_end = end
    total = prev_end - burst[0]["first_ready"]
    print(f"\nburst: {len(burst)} launches, {total:.1f} us from the first block ready to the last block's end\n")
    print(f"{'kernel':60} {'launches':>8} {'dependency_us':>13} {'run_us':>9} {'spread_us':>9} {'share':>6}")
    for name, (n, dep, run, spread) in sorted(per.items(), key=lambda kv: -(kv[1][1] + kv[1][2])):
        print(f"{name[:60]:60} {n:8d} {dep:13.1f} {run:9.1f} {spread:9.1f} {100 * (dep + run) / total:5.1f}%")
    dep_total = sum(v[1] for v in per.values())
    print(f"\nall dependency waits: {dep_total:.1f} us ({100 * dep_total / total:.1f}%)")


if __name__ == "__main__":
    main()
