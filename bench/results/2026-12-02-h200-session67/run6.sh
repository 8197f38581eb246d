#!/usr/bin/env bash
# Session 67, run 6: how cuDNN's decode kernel copies K and V (runs 4-5: threads copying whole rows read the
# paged cache 6-8% faster than the copy engine, but only with 256 threads a block; cuDNN's kernel has 128).
# Nsight Compute's per-instruction page of its kernel at B 32 x 4k (contiguous): which load instructions, how many
# a thread, and where its warps stall.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s67b/libtessera.so.xz > $B/libtessera.so || exit 1
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run6; mkdir -p $R
TESSERA_CACHE_DIR=/tmp/tc6 timeout 300 ncu --profile-from-start off -k regex:cudnn_generated -c 1 --set full --import-source no \
  -o /tmp/cudnn_decode python3 bench/results/2026-12-02-h200-session66/run3_decode_ncu.py $B/libtessera.so 32 4096 > $R/ncu.log 2>&1
echo "ncu rc $?"; tail -n 3 $R/ncu.log
ncu -i /tmp/cudnn_decode.ncu-rep --page source --csv --print-source sass > /tmp/cudnn_decode.csv 2>&1
echo "csv rc $? $(wc -l < /tmp/cudnn_decode.csv) lines"
python3 bench/ncu_source_summary.py /tmp/cudnn_decode.csv --warps 1024 --stalls > $R/summary.txt 2>&1; echo "summary rc $?"
head -c 15000000 /tmp/cudnn_decode.csv | xz -9 > $R/sass.csv.xz
python3 - /tmp/cudnn_decode.csv <<'PY' | tee $R/opcodes.txt
import collections, csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = next(i for i, r in enumerate(rows) if "Address" in r and "Source" in r)
hdr = rows[h]; src = hdr.index("Source"); ex = hdr.index("Instructions Executed")
count = collections.Counter(); static = collections.Counter()
for r in rows[h + 1:]:
    try:
        w = r[src].split(); op = w[1] if w[0].startswith("@") else w[0]; n = int(r[ex] or 0)
    except (IndexError, ValueError):
        continue
    count[op] += n; static[op] += 1
print("opcode, executed warp-instructions over 1024 warps, static count")
for op, n in count.most_common(45):
    print(f"{op:28s} {n / 1024:10.1f} {static[op]:6d}")
PY
ncu -i /tmp/cudnn_decode.ncu-rep --page details > $R/details.txt 2>&1
date +%T
