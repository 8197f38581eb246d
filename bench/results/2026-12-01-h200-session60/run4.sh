#!/usr/bin/env bash
# Session 60, run 4: the matmul sweep (the issue's 24 shapes and squares), s59f against s60a, each with a fresh
# tuning cache, then M = 8-64 rows of 4096 x 4096 again.
set -u
cd "$(dirname "$0")"
B=/tmp/bin; mkdir -p $B
xz -dc ../../../.device/s59f/tessera.xz > $B/tessera_old; chmod +x $B/tessera_old
xz -dc ../../../.device/s60a/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run4; mkdir -p $R
rm -rf /tmp/tc_old /tmp/tc_new
bin() { [ $1 = old ] && echo $B/tessera_old || echo $B/tessera; }
for v in new old; do
  TESSERA_CACHE_DIR=/tmp/tc_$v timeout 280 $(bin $v) bench matmul --out /tmp/mm > /dev/null 2>&1; echo "sweep $v rc $?"
  cp /tmp/mm/bench.md $R/matmul_sweep_$v.md
  grep -E "^\| matmul" /tmp/mm/bench.md | cut -d'|' -f3,4,11,12 | tr -s ' ' | tr '\n' ';'; echo
  python3 -c "
import re,statistics
r=[float(m.group(1)) for l in open('/tmp/mm/bench.md') if l.startswith('| matmul') for m in [re.search(r'\| *([0-9.]+)x *\|',l)] if m]
print('median', statistics.median(r), 'min', min(r), 'n', len(r))"
  cp /tmp/tc_$v/autotune.json $R/autotune_$v.json
done
S=8x4096x4096,16x4096x4096,32x4096x4096,64x4096x4096,16x6144x4096,16x14336x4096
for v in new old; do
  TESSERA_CACHE_DIR=/tmp/tc_$v timeout 60 $(bin $v) bench matmul --shapes $S --out /tmp/x > /dev/null 2>&1; echo "rows $v rc $?"
  grep -E "^\| matmul" /tmp/x/bench.md | cut -d'|' -f3,4,11,12 | tr -s ' ' | tr '\n' ';'; echo
done
date +%T
