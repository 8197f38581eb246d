#!/usr/bin/env python3
"""Logits parity of `tessera generate` with Hugging Face transformers on a local checkpoint.

Runs `tessera generate --prompt-ids ... --temperature 0 --ignore-eos --max-tokens N --dump-logits F --print-ids`,
then transformers on the prompt followed by tessera's generated ids (teacher forcing), and compares row by row:
row 0 = the logits after the prompt, row i = after generated token i-1. Prints per-row max |diff|, the max
relative to the row's max |logit|, and whether the argmax agrees; exits 1 when a row exceeds --tolerance
(relative) or an argmax differs where transformers' top-2 margin is clear.

  python3 scripts/parity_transformers.py --tessera build/tessera --model /models/Llama-3.2-1B \
      --device cuda --dtype bf16 --prompt-ids 128000,791,6864,315,9822,374 --max-tokens 16
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tessera", default="build/tessera")
    ap.add_argument("--model", required=True)
    ap.add_argument("--prompt-ids", required=True)
    ap.add_argument("--max-tokens", type=int, default=16)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dtype", default="f32", choices=["f32", "bf16", "f16"])
    ap.add_argument("--tolerance", type=float, default=None, help="max |diff| / max |logit| per row")
    args = ap.parse_args()
    tol = args.tolerance if args.tolerance is not None else (1e-3 if args.dtype == "f32" else 3e-2)

    import torch
    from transformers import AutoModelForCausalLM

    prompt = [int(x) for x in args.prompt_ids.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, "logits.bin")
        cmd = [args.tessera, "generate", "--model", args.model, "--prompt-ids", args.prompt_ids,
               "--max-tokens", str(args.max_tokens), "--temperature", "0", "--ignore-eos", "--print-ids",
               "--device", args.device, "--dtype", args.dtype, "--dump-logits", dump]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True)
        ids = [int(x) for x in out.stdout.strip().splitlines()[-1].split(",")]
        ours = np.fromfile(dump, dtype="<f4")
    vocab = ours.size // len(ids)
    ours = ours.reshape(len(ids), vocab)

    torch_dtype = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[args.dtype]
    dev = "cuda" if args.device.startswith("cuda") else "cpu"
    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch_dtype).to(dev).eval()
    seq = torch.tensor([prompt + ids[:-1]], device=dev)
    with torch.no_grad():
        ref = model(seq).logits[0].float().cpu().numpy()
    ref = ref[len(prompt) - 1:, :vocab]

    worst = 0.0
    failed = False
    for i in range(len(ids)):
        diff = np.abs(ours[i] - ref[i]).max()
        rel = diff / max(1e-6, np.abs(ref[i]).max())
        top2 = np.sort(ref[i])[-2:]
        margin = top2[1] - top2[0]
        agree = int(ours[i].argmax()) == int(ref[i].argmax())
        worst = max(worst, rel)
        bad = rel > tol or (not agree and margin > 4 * diff)
        failed |= bad
        print(f"row {i:3d}: max|diff| {diff:.4g}  relative {rel:.3g}  argmax {'same' if agree else 'DIFFERS'}"
              f" (margin {margin:.3g}){'  FAIL' if bad else ''}")
    print(f"{'FAIL' if failed else 'ok'}: {len(ids)} rows, worst relative error {worst:.3g} (tolerance {tol:g})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
