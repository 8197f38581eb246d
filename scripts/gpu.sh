#!/usr/bin/env bash
# The GPU workflow, in one script. Here (no GPU needed):
#   scripts/gpu.sh stage         builds, then packs what the GPU machine needs into .device/ (git-ignored;
#                                carried with the call). The binaries hold device code for sm_90a and sm_80
#                                and are xz-compressed to fit the transfer limit.
# There, from the repository root, results under $OUT (default out/):
#   bash scripts/gpu.sh check    GPU tests, `tessera ops check`, the embedded model's training (when the corpus
#                                is carried in .dev-model/) and logits parity with transformers
#   bash scripts/gpu.sh bench    matmul vs cuBLAS, memory-bound ops and attention vs PyTorch, the engine on
#                                Llama-3.1-8B shapes vs transformers
#   bash scripts/gpu.sh run      both
# Each step has its own time limit so a call ends inside the device's 10-minute command limit.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
BIN=.device/bin

unpack() {
  mkdir -p "$BIN"
  for f in .device/*.xz; do xz -dc "$f" >"$BIN/$(basename "$f" .xz)"; chmod +x "$BIN/$(basename "$f" .xz)"; done
  export TESSERA_CACHE_DIR=/tmp/tessera-autotune  # $OUT brings back at most 8 files
  nvidia-smi -L
}

check() {
  local train_pid=""
  if [ -f .dev-model/corpus.txt ]; then
    echo "== training the embedded model (background)"
    PYTHONUNBUFFERED=1 timeout 300 python3 scripts/model/train_tiny_llama.py --corpus .dev-model/corpus.txt \
      --out /tmp/tessera-tiny --time-budget "${TRAIN_SECONDS:-120}" >"$OUT/train.log" 2>&1 &
    train_pid=$!
  fi
  echo "== GPU tests"
  timeout 240 "$BIN/tessera_gpu_tests" --gtest_brief=1 >"$OUT/gpu_tests.log" 2>&1
  grep -E "FAILED|PASSED|tests ran" "$OUT/gpu_tests.log" | tail -n 30
  echo "== ops check (tile-cuda)"
  timeout 120 "$BIN/tessera" ops check --backend tile-cuda >"$OUT/ops_check.log" 2>&1
  tail -n 8 "$OUT/ops_check.log"
  local embedded=""
  [ -f models/tessera-tiny/model.safetensors ] && embedded=models/tessera-tiny
  if [ -n "$train_pid" ]; then
    wait "$train_pid"
    tail -n 12 "$OUT/train.log"
    if [ -f /tmp/tessera-tiny/model.safetensors ]; then
      tar -C /tmp -cf "$OUT/tessera-tiny.tar" tessera-tiny
      embedded=/tmp/tessera-tiny
      echo "== the embedded model, greedy, on the GPU"
      timeout 60 "$BIN/tessera" generate --model /tmp/tessera-tiny --prompt "And God said" --max-tokens 40 \
        --temperature 0 --device cuda
      echo
    fi
  fi
  echo "== logits parity with transformers"
  PYTHONUNBUFFERED=1 timeout "${PARITY_SECONDS:-200}" python3 scripts/model/parity.py --tessera "$BIN/tessera" \
    --devices cpu,cuda --dtypes f32,bf16 --embedded "$embedded" --tokenize-tool "$BIN/tessera_tokenize_tool" \
    --timeout 60 --out "$OUT/parity" 2>&1 | tail -n 30
}

bench() {
  echo "== matmul vs cuBLAS"
  (cd bench && PYTHONUNBUFFERED=1 timeout 150 python3 matmul_bench.py --lib "../$BIN/libtessera.so" --out "$OUT") 2>&1 | tail -n 30
  echo "== memory-bound ops and attention vs PyTorch"
  (cd bench && PYTHONUNBUFFERED=1 timeout 170 python3 gpu_bench.py --lib "../$BIN/libtessera.so" --out "$OUT" --no-matmul) \
    >/tmp/ops_bench.log 2>&1
  tail -n 40 /tmp/ops_bench.log
  echo "== engine: Llama-3.1-8B shapes, random weights"
  timeout 100 "$BIN/tessera" bench-model --model bench/models/llama-3.1-8b --random-weights --device cuda \
    --prompt-len 2048 --batch 1,8,32 --decode-steps 32 --cuda-graph 2>&1 | tee "$OUT/bench_model.log" | tail -n 15
  echo "== profile: the decode-shape matmul (heuristic configuration)"
  (cd bench && TESSERA_AUTOTUNE=0 timeout 50 ncu --kernel-name-base mangled -k regex:MatmulStaged -s 2 -c 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
    python3 profile_matmul.py --lib "../$BIN/libtessera.so" 1 14336 4096 >"$OUT/ncu_decode.txt" 2>&1)
  grep -E "Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)" "$OUT/ncu_decode.txt" | head -n 8
  echo "== transformers on the same shapes"
  PYTHONUNBUFFERED=1 timeout "${HF_SECONDS:-100}" python3 scripts/model/bench_transformers.py --skip-compile \
    --decode-steps 16 --out "$OUT/bench_transformers" 2>&1 | tail -n 15
}

case "${1:-}" in
  stage)
    set -e
    bash scripts/build.sh >/dev/null
    rm -rf .device && mkdir -p .device
    for f in build/tessera build/libtessera.so build/tests/tessera_gpu_tests build/tests/tessera_tokenize_tool; do
      strip -o ".device/$(basename "$f")" "$f"
      xz -T2 -6 ".device/$(basename "$f")"
    done
    du -sh .device
    ;;
  check) mkdir -p "$OUT"; unpack; check ;;
  bench) mkdir -p "$OUT"; unpack; bench ;;
  run) mkdir -p "$OUT"; unpack; check; bench ;;
  *) echo "usage: scripts/gpu.sh stage|check|bench|run" >&2; exit 2 ;;
esac
