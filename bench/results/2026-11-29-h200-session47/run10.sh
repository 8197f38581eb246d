#!/usr/bin/env bash
# Session 47, run 10: run 9's parity had qwen2 on the CPU in bf16 at 2.15e-2 (limit 2e-2; 1.87e-2 in session 39).
# Is that the fused kernel or the draw? qwen2 and llama in bf16 on both devices, three seeds, with the fused kernel
# (default) and with the unfused form forced.
set -u
cd "$(dirname "$0")"
B=$PWD/bin; mkdir -p $B
xz -dc ../../../.device/s47/tessera.xz > $B/tessera; chmod +x $B/tessera
nvidia-smi -L; date +%T
cd ../../..
for seed in 0 1 2; do
  for c in fused unfused; do
    force=""; [ $c = unfused ] && force=qkv_rope_kv_cache_append:unfused
    TESSERA_AUTOTUNE_FORCE=$force PYTHONUNBUFFERED=1 timeout 100 python3 scripts/model/parity.py --tessera $B/tessera --devices cpu,cuda \
      --dtypes bf16 --archs qwen2,llama --embedded '' --seed $seed --timeout 60 --out /tmp/p_${seed}_$c > /tmp/p.log 2>&1
    echo "seed $seed $c rc $?"; grep -E "^(qwen2|llama) " /tmp/p.log
  done
done
date +%T
