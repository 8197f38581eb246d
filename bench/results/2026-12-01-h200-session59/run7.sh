#!/usr/bin/env bash
# Session 59, run 7: issue 3 and 4 targets re-measured with main at b04d1d2 (the bench's lead reads instead of
# writing). `tessera bench`: the row ops (bf16 twice, f16 once), decode attention and MLA at the default 200 us
# batches and at --batch-us 2000; then bench/gpu_bench.py (CUDA-graph device time against PyTorch / cuDNN SDPA):
# prefill attention, decode attention, MLA.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s59e/tessera.xz > $B/tessera; chmod +x $B/tessera
xz -dc ../../../.device/s59e/libtessera.so.xz > $B/libtessera.so
nvidia-smi -L; date +%T
cd ../../..
R=$OUT/run7; mkdir -p $R
export TESSERA_CACHE_DIR=/tmp/tc_t; rm -rf /tmp/tc_t
ROWS="rms_norm rms_norm_residual layer_norm softmax gelu silu_and_mul rope embedding"
D=1x32768x32x8x128,8x8192x32x8x128,16x8192x32x8x128,32x4096x32x8x128,64x8192x32x8x128
MLA=mla_decode:64x4096,mla_decode:128x4096,mla_decode:64x8192,mla_decode:128x8192,mla_decode:64x32768
run() {  # name args...
  local name=$1; shift
  timeout 250 $B/tessera bench "$@" --out /tmp/x > /dev/null 2>&1; local rc=$?
  cp /tmp/x/bench.md $R/$name.md; echo "$name rc $rc"
  grep -E "^\| [a-z]" /tmp/x/bench.md | grep -v "^| op" | cut -d'|' -f3,4,5,8 | tr '\n' ';'; echo
}
run rows_bf16_1 $ROWS --shapes 16384x8192,4096x4096
run rows_bf16_2 $ROWS --shapes 16384x8192,4096x4096
run rows_f16 $ROWS --shapes 16384x8192,4096x4096 --dtype f16
run rows_bf16_2000 $ROWS --shapes 16384x8192,4096x4096 --batch-us 2000
run decode_1 fmha_decode mla_decode --shapes $D,$MLA
run decode_2 fmha_decode mla_decode --shapes $D,$MLA
run decode_2000 fmha_decode mla_decode --shapes $D,$MLA --batch-us 2000
date +%T
cd bench
timeout 250 python3 gpu_bench.py --lib $B/libtessera.so --prefill-only --out $R/py_prefill > $R/py_prefill.log 2>&1; echo "prefill rc $?"
grep -E "fmha|cudnn|ratio|x " $R/py_prefill.log | head -n 30
timeout 200 python3 gpu_bench.py --lib $B/libtessera.so --decode-only --out $R/py_decode > $R/py_decode.log 2>&1; echo "decode rc $?"
grep -E "decode" $R/py_decode.log | head -n 20
timeout 200 python3 gpu_bench.py --lib $B/libtessera.so --mla-only --out $R/py_mla > $R/py_mla.log 2>&1; echo "mla rc $?"
grep -E "mla" $R/py_mla.log | head -n 20
date +%T
