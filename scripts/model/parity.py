#!/usr/bin/env python3
"""Logits parity between the tessera CLI and Hugging Face transformers.

For each architecture a tiny random-weight model is built with transformers (fixed seed, 2 layers, a vocab of a
few hundred, GQA where the architecture has it, Qwen2's q/k/v biases, Qwen3's q/k norms and explicit head_dim,
tied and untied embeddings, llama3 RoPE scaling, a Mistral sliding window) and saved with save_pretrained
(safetensors, fp32). The embedded model (models/tessera-tiny) is checked too when present. For each model,
device and dtype, tessera runs

    tessera generate --model DIR --prompt-ids IDS --max-tokens N --temperature 0 --device D --dtype T
                     --print-ids --dump-logits FILE

on a few prompts. FILE holds N rows of vocab_size little-endian float32 logits: row 0 after the prompt's last
token, row i after generated token i-1. The reference is transformers in fp32 with eager attention on the CPU:
  - its own greedy continuation (32 steps by default): the tokens tessera must reproduce in f32;
  - its logits along tessera's own continuation (teacher forcing), so that every row is compared in the same
    context even after a divergence.
For bf16 the reference model's weights are first rounded to bf16 (tessera runs bf16 weights), and the error of
transformers' own bf16 forward against the same reference is reported next to tessera's for scale.

Error per row: max|tessera - reference| / max|reference|; a case's error is the largest over rows and prompts.
PASS: f32 error < 1e-4 and identical greedy tokens for every step; bf16 error < 2e-2 (tokens are reported).
A tessera failure (non-zero exit, missing output, wrong dump size) is a FAIL with its stderr; the rest goes on.

    python3 scripts/model/parity.py --tessera .device/tessera --devices cpu,cuda --dtypes f32,bf16 --out $OUT/parity

Writes OUT/parity.md and OUT/parity.json and prints the table. Exit status 0 only if nothing failed.
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOLERANCE = {"f32": 1e-4, "bf16": 2e-2}
ARCHS = ["llama", "llama3-tied", "mistral", "mistral-swa", "qwen2", "qwen3", "gpt2"]


# The GPU machine has no network: never let transformers or huggingface_hub try to reach the Hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tessera", default=None, help="the tessera binary (default: .device/tessera, else build/tessera)")
    p.add_argument("--devices", default="cpu,cuda", help="comma-separated: cpu, cuda")
    p.add_argument("--dtypes", default="f32,bf16", help="comma-separated: f32, bf16")
    p.add_argument("--archs", default=",".join(ARCHS), help="comma-separated subset of " + ",".join(ARCHS))
    p.add_argument("--embedded", default="models/tessera-tiny", help="the embedded model's directory ('' to skip)")
    p.add_argument("--tokenize-tool", default=None, help="tessera_tokenize_tool, to compare the embedded model's "
                   "tokenizer with the tokenizers library (default: .device/ or build/tests/; skipped if absent)")
    p.add_argument("--corpus", default=".dev-model/corpus.txt", help="text lines for the tokenizer check (optional)")
    p.add_argument("--steps", type=int, default=32, help="generated tokens per prompt")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per tessera command")
    p.add_argument("--work", default=None, help="keep the generated checkpoints and dumps here (default: a temp dir)")
    p.add_argument("--out", default="out/parity", help="directory for parity.md and parity.json")
    args = p.parse_args(argv)
    args.devices = [d for d in args.devices.split(",") if d]
    args.dtypes = [d for d in args.dtypes.split(",") if d]
    args.archs = [a for a in args.archs.split(",") if a]
    for d in args.devices:
        if d not in ("cpu", "cuda"):
            p.error(f"unknown device {d!r}")
    for d in args.dtypes:
        if d not in TOLERANCE:
            p.error(f"unknown dtype {d!r}")
    for a in args.archs:
        if a not in ARCHS:
            p.error(f"unknown architecture {a!r}; known: {', '.join(ARCHS)}")
    if args.tokenize_tool is None:
        for candidate in (".device/tessera_tokenize_tool", "build/tests/tessera_tokenize_tool"):
            if Path(candidate).exists():
                args.tokenize_tool = candidate
                break
    if args.tessera is None:
        args.tessera = ".device/tessera" if Path(".device/tessera").exists() else "build/tessera"
    return args


# ---------------------------------------------------------------------------------------------------------------
# Tiny random models


def tiny_config(arch):
    """(config class name, kwargs, note) of a 2-layer model exercising the architecture's features."""
    common = dict(bos_token_id=None, eos_token_id=None)  # no end-of-sequence: every run makes all its steps
    rope = {"rope_type": "default", "rope_theta": 10000.0}
    if arch == "llama":
        return "LlamaConfig", dict(common, vocab_size=311, hidden_size=64, intermediate_size=176, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                                   rms_norm_eps=1e-5, rope_parameters=rope, tie_word_embeddings=False), "GQA 4/2, untied"
    if arch == "llama3-tied":
        # Llama 3.1 RoPE scaling with a small original context so that the scaled, blended and kept frequency
        # bands all occur for head_dim 16.
        scaled = {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
                  "high_freq_factor": 4.0, "original_max_position_embeddings": 64}
        return "LlamaConfig", dict(common, vocab_size=384, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=1, max_position_embeddings=256,
                                   rms_norm_eps=1e-5, rope_parameters=scaled, tie_word_embeddings=True),\
            "MQA 4/1, tied, llama3 rope scaling"
    if arch == "mistral":
        return "MistralConfig", dict(common, vocab_size=300, hidden_size=64, intermediate_size=160, num_hidden_layers=2,
                                     num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                                     rms_norm_eps=1e-5, rope_parameters=rope, sliding_window=None,
                                     tie_word_embeddings=False), "GQA 4/2, untied, full attention"
    if arch == "mistral-swa":
        return "MistralConfig", dict(common, vocab_size=300, hidden_size=64, intermediate_size=160, num_hidden_layers=2,
                                     num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                                     rms_norm_eps=1e-5, rope_parameters=rope, sliding_window=8,
                                     tie_word_embeddings=False), "GQA 4/2, sliding window 8 (key within 8 of query)"
    if arch == "qwen2":
        return "Qwen2Config", dict(common, vocab_size=293, hidden_size=64, intermediate_size=144, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                                   rms_norm_eps=1e-6, rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
                                   use_sliding_window=False, tie_word_embeddings=True), "GQA 4/2, qkv bias, tied"
    if arch == "qwen3":
        return "Qwen3Config", dict(common, vocab_size=320, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, head_dim=32, max_position_embeddings=128,
                                   rms_norm_eps=1e-6, rope_parameters={"rope_type": "default", "rope_theta": 1000000.0},
                                   use_sliding_window=False, attention_bias=False, tie_word_embeddings=False),\
            "GQA 4/2, q/k norm, head_dim 32 != hidden/heads, untied"
    if arch == "gpt2":
        return "GPT2Config", dict(common, vocab_size=301, n_embd=64, n_layer=2, n_head=4, n_positions=128,
                                  n_inner=None, activation_function="gelu_new", layer_norm_epsilon=1e-5,
                                  tie_word_embeddings=True), "MHA 4, learned positions, biases, tied"
    raise ValueError(arch)


def randomize(model, torch, seed):
    """Every parameter random and O(1)-scaled: matrices N(0, 1/hidden), norm weights 1 + N(0, 0.1^2), biases
    N(0, 0.1^2), so that biases, norms and all heads influence the logits (transformers initialises biases to 0
    and norms to 1, which would hide mistakes there)."""
    gen = torch.Generator().manual_seed(seed)
    hidden = model.config.hidden_size
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() >= 2:
                v = torch.randn(p.shape, generator=gen) / hidden ** 0.5
            elif name.endswith("bias"):
                v = 0.1 * torch.randn(p.shape, generator=gen)
            else:
                v = 1.0 + 0.1 * torch.randn(p.shape, generator=gen)
            p.copy_(v.to(p.dtype))


def build_random_model(arch, directory, seed):
    import torch
    import transformers

    cls_name, kwargs, note = tiny_config(arch)
    config_cls = getattr(transformers, cls_name)
    config = config_cls(**kwargs)
    model_cls = {"LlamaConfig": "LlamaForCausalLM", "MistralConfig": "MistralForCausalLM",
                 "Qwen2Config": "Qwen2ForCausalLM", "Qwen3Config": "Qwen3ForCausalLM",
                 "GPT2Config": "GPT2LMHeadModel"}[cls_name]
    torch.manual_seed(seed)
    model = getattr(transformers, model_cls)(config)
    randomize(model, torch, seed)
    model.eval()
    model.save_pretrained(str(directory))
    if not (Path(directory) / "model.safetensors").exists():
        raise RuntimeError(f"save_pretrained wrote no model.safetensors in {directory}")
    write_tokenizer(directory, config.vocab_size)
    return note


def byte_chars():
    """GPT-2's byte-to-character map: printable Latin-1 bytes stand for themselves, the others take the
    characters from U+0100 on, in byte order."""
    chars, extra = [], 256
    for b in range(256):
        if 33 <= b <= 126 or 161 <= b <= 172 or 174 <= b <= 255:
            chars.append(chr(b))
        else:
            chars.append(chr(extra))
            extra += 1
    return chars


def write_tokenizer(directory, vocab_size):
    """A byte-level BPE tokenizer.json covering the vocab: the 256 byte tokens, then two-letter merges of
    ASCII letters, so the random models are complete Hugging Face directories (the prompts are ids anyway)."""
    chars = byte_chars()
    vocab = {c: i for i, c in enumerate(chars)}
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)] + [chr(c) for c in range(ord("A"), ord("Z") + 1)]
    merges = []
    for a in letters:
        for b in letters:
            if len(vocab) >= vocab_size:
                break
            vocab[a + b] = len(vocab)
            merges.append([a, b])
    if len(vocab) != vocab_size:
        raise ValueError(f"cannot build a {vocab_size}-token tokenizer")
    tok = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": merges},
    }
    (Path(directory) / "tokenizer.json").write_text(json.dumps(tok, ensure_ascii=False) + "\n", encoding="utf-8")


def prompts_for(arch, vocab_size, seed):
    """Three prompts: one token, 7 tokens, 19 tokens; fixed per architecture."""
    rng = random.Random(f"{seed}-{arch}")
    return [[rng.randrange(vocab_size) for _ in range(n)] for n in (1, 7, 19)]


def embedded_prompts(model_dir):
    texts = ["In the beginning", "And the LORD said unto Moses,", "Blessed are the"]
    try:
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))
        return [tok.encode(t).ids for t in texts]
    except Exception as e:
        print(f"  (tokenizer unavailable: {e}; using fixed ids)")
        return [[0], [0, 100, 200, 300], [0, 5, 10, 15, 20, 25, 30]]


# ---------------------------------------------------------------------------------------------------------------
# Reference (transformers, CPU, fp32 compute, eager attention)


class Reference:
    """Greedy continuation and teacher-forced logits of one model directory for one weight precision."""

    def __init__(self, model_dir, dtype_name):
        import torch
        from transformers import AutoModelForCausalLM

        self.torch = torch
        self.model = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32,
                                                          attn_implementation="eager").eval()
        if dtype_name == "bf16":
            with torch.no_grad():
                for p in self.model.parameters():
                    p.copy_(p.to(torch.bfloat16).to(torch.float32))
        self.vocab_size = self.model.config.vocab_size
        eos = getattr(self.model.config, "eos_token_id", None)
        self.eos_ids = set(eos if isinstance(eos, list) else [] if eos is None else [eos])
        self.hf_bf16 = None
        if dtype_name == "bf16":
            self.hf_bf16 = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.bfloat16,
                                                                attn_implementation="eager").eval()

    def logits(self, ids, model=None):
        """float64 numpy [len(ids), vocab]: the logits after each position."""
        import numpy as np

        m = self.model if model is None else model
        with self.torch.no_grad():
            out = m(input_ids=self.torch.tensor([ids], dtype=self.torch.long), use_cache=False)
        return out.logits[0].to(self.torch.float64).numpy().astype(np.float64)

    def greedy(self, prompt, steps):
        """(ids, rows): transformers' greedy continuation, recomputing the whole sequence at each step."""
        import numpy as np

        ids, rows = list(prompt), []
        for _ in range(steps):
            row = self.logits(ids)[-1]
            rows.append(row)
            ids.append(int(np.argmax(row)))
        return ids[len(prompt):], np.stack(rows)

    def teacher_forced(self, prompt, continuation, model=None):
        """Rows of logits in tessera's context: after the prompt, then after each continuation token but the last."""
        seq = list(prompt) + list(continuation[:-1])
        return self.logits(seq, model)[len(prompt) - 1:]


# ---------------------------------------------------------------------------------------------------------------
# tessera


def run_tessera(binary, model_dir, prompt, steps, device, dtype, dump_path, vocab_size, timeout):
    """(ids, rows, error): tessera's continuation and logits rows, or an error message."""
    import numpy as np

    cmd = [binary, "generate", "--model", str(model_dir), "--prompt-ids", ",".join(map(str, prompt)),
           "--max-tokens", str(steps), "--temperature", "0", "--device", device, "--dtype", dtype,
           "--print-ids", "--dump-logits", str(dump_path)]
    if Path(dump_path).exists():
        Path(dump_path).unlink()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, f"timed out after {timeout:.0f} s: {' '.join(cmd)}"
    except OSError as e:
        return None, None, f"cannot run {binary}: {e}"
    if r.returncode != 0:
        return None, None, f"exit {r.returncode}: {tail(r.stderr or r.stdout)}"
    ids = None
    for line in reversed(r.stdout.strip().splitlines()):
        if re.fullmatch(r"\s*\d+(\s*,\s*\d+)*\s*", line):
            ids = [int(x) for x in line.split(",")]
            break
    if ids is None:
        return None, None, f"no id line in stdout: {tail(r.stdout)}"
    if not Path(dump_path).exists():
        return ids, None, "no logits dump written"
    raw = np.fromfile(dump_path, dtype="<f4")
    if raw.size % vocab_size:
        return ids, None, f"logits dump holds {raw.size} floats, not a multiple of the vocab size {vocab_size}"
    rows = raw.reshape(-1, vocab_size).astype(np.float64)
    if rows.shape[0] != len(ids):
        return ids, None, f"logits dump has {rows.shape[0]} rows for {len(ids)} generated tokens"
    return ids, rows, None


def tail(text, n=600):
    text = (text or "").strip()
    return text if len(text) <= n else "..." + text[-n:]


# ---------------------------------------------------------------------------------------------------------------
# Comparison


def row_errors(got, ref):
    """Per row: max|got - ref| / max|ref| (NaN or inf in `got` give inf)."""
    import numpy as np

    diff = np.abs(got - ref).max(axis=1)
    scale = np.maximum(np.abs(ref).max(axis=1), 1e-30)
    err = diff / scale
    err[~np.isfinite(err)] = np.inf
    return err


def compare_tokens(got_ids, ref_ids, eos_ids):
    """(identical, first_divergence or None). Stopping early at an end-of-sequence token that the reference
    also produced there counts as identical."""
    n = min(len(got_ids), len(ref_ids))
    for i in range(n):
        if got_ids[i] != ref_ids[i]:
            return False, i
    if len(got_ids) < len(ref_ids):
        if got_ids and got_ids[-1] in eos_ids:
            return True, None
        return False, len(got_ids)
    return len(got_ids) == len(ref_ids), None if len(got_ids) == len(ref_ids) else n


def margin(row):
    """Gap between the two largest logits: small gaps make a greedy divergence a near-tie, not a bug."""
    import numpy as np

    top = np.sort(row)[-2:]
    return float(top[1] - top[0])


def fmt_err(x):
    return "-" if x is None else ("inf" if x == float("inf") else f"{x:.2e}")


# ---------------------------------------------------------------------------------------------------------------


def check_model(name, note, model_dir, prompts, args, work, results):
    for dtype in args.dtypes:
        t0 = time.time()
        try:
            ref = Reference(model_dir, dtype)
            greedy = [ref.greedy(p, args.steps) for p in prompts]
            hf_bf16_err = None
            if ref.hf_bf16 is not None:
                hf_bf16_err = max(float(row_errors(ref.teacher_forced(p, g[0], ref.hf_bf16), g[1]).max())
                                  for p, g in zip(prompts, greedy))
        except Exception as e:
            for device in args.devices:
                results.append(dict(model=name, note=note, device=device, dtype=dtype, max_rel_err=None,
                                    tokens_identical=False, result="FAIL",
                                    detail=f"transformers reference failed: {type(e).__name__}: {e}"))
            print(f"{name} {dtype}: reference failed: {e}")
            continue
        for device in args.devices:
            worst, identical, details = 0.0, True, []
            failed = None
            for k, (prompt, (ref_ids, ref_rows)) in enumerate(zip(prompts, greedy)):
                dump = work / f"{name}-{device}-{dtype}-{k}.f32"
                ids, rows, error = run_tessera(args.tessera, model_dir, prompt, args.steps, device, dtype, dump,
                                               ref.vocab_size, args.timeout)
                if error:
                    failed = f"prompt {k}: {error}"
                    break
                if not ids:
                    failed = f"prompt {k}: tessera generated no tokens"
                    break
                same, at = compare_tokens(ids, ref_ids, ref.eos_ids)
                if not same:
                    identical = False
                    if at is not None and at < len(ref_rows):
                        details.append(f"prompt {k}: tokens differ from step {at} (reference top-2 margin "
                                       f"{margin(ref_rows[at]):.2e})")
                    else:
                        details.append(f"prompt {k}: {len(ids)} tokens for {len(ref_ids)}")
                elif len(ids) < len(ref_ids):
                    details.append(f"prompt {k}: stopped at end-of-sequence after {len(ids)} tokens")
                # Teacher forcing along tessera's own tokens: identical to ref_rows while the tokens agree.
                forced = ref.teacher_forced(prompt, ids) if ids != ref_ids[:len(ids)] else ref_rows[:len(ids)]
                err = row_errors(rows, forced)
                worst = max(worst, float(err.max()))
            if failed:
                results.append(dict(model=name, note=note, device=device, dtype=dtype, max_rel_err=None,
                                    tokens_identical=False, result="FAIL", detail=failed,
                                    hf_bf16_err=hf_bf16_err))
            else:
                ok = worst < TOLERANCE[dtype] and (identical or dtype != "f32")
                results.append(dict(model=name, note=note, device=device, dtype=dtype, max_rel_err=worst,
                                    tokens_identical=identical, result="PASS" if ok else "FAIL",
                                    detail="; ".join(details), hf_bf16_err=hf_bf16_err))
            r = results[-1]
            print(f"{name:12s} {device:4s} {dtype:4s} err {fmt_err(r['max_rel_err']):>8s} tokens "
                  f"{'same' if r['tokens_identical'] else 'DIFF'}  {r['result']}  {r['detail']}", flush=True)
        print(f"  ({name} {dtype}: {time.time() - t0:.1f} s)")


TOKENIZER_TEXTS = [
    "In the beginning God created the heaven and the earth.",
    "And the LORD said unto Moses, Go in unto Pharaoh.",
    "  leading spaces, trailing spaces   ",
    "Numbers 3:16 and 1234567890, 3.14159; (parentheses) [brackets] {braces}!?",
    "line one\nline two\n\n\tindented\r\nwindows",
    "It's, I'm, we've, they'll, you'd, 'quoted' \"double\"",
    "na\u00efve caf\u00e9 \u2014 \u201csmart quotes\u201d \u00bd \u00b5",
    "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8 \u0420\u0443\u0441\u0441\u043a\u0438\u0439 \u0627\u0644\u0639\u0631\u0628\u064a\u0629",
    "emoji \U0001f642\U0001f680 and combining e\u0301",
    "<|begin_of_text|>special tokens inside<|end_of_text|> text",
    "",
]


def check_tokenizer(model_dir, args, results):
    """The embedded model's tokenizer.json through tessera (tessera_tokenize_tool) and through the tokenizers
    library, on fixed edge cases and up to 2000 corpus lines: identical ids required."""
    row = dict(model="tessera-tiny", note="tokenizer.json: tessera vs tokenizers", device="host", dtype="-",
               max_rel_err=None, tokens_identical=False, result="FAIL", detail="")
    tool = args.tokenize_tool
    if not tool or not Path(tool).exists():
        row.update(result="SKIP", detail="no tessera_tokenize_tool (stage build/tests/tessera_tokenize_tool)")
        results.append(row)
        return
    try:
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))
        texts = list(TOKENIZER_TEXTS)
        if args.corpus and Path(args.corpus).exists():
            lines = [l for l in Path(args.corpus).read_text(encoding="utf-8").splitlines() if l][:2000]
            texts += lines + ["\n".join(lines[i:i + 5]) for i in range(0, 200, 5)]
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as f:
            for t in texts:
                f.write(json.dumps(t) + "\n")
            path = f.name
        r = subprocess.run([tool, str(Path(model_dir) / "tokenizer.json"), path], capture_output=True, text=True,
                           timeout=args.timeout)
        os.unlink(path)
        got = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
        if len(got) != len(texts):
            row["detail"] = f"tool gave {len(got)} lines for {len(texts)} texts (exit {r.returncode}): {tail(r.stderr)}"
        else:
            bad = [i for i, t in enumerate(texts) if tok.encode(t).ids != got[i]]
            row["tokens_identical"] = not bad
            row["result"] = "PASS" if not bad and r.returncode == 0 else "FAIL"
            row["detail"] = f"{len(texts)} texts, {len(bad)} differ" + \
                (f", first: {texts[bad[0]][:60]!r}" if bad else "") + f"; {r.stderr.strip()[-200:]}"
    except Exception as e:
        row["detail"] = f"{type(e).__name__}: {e}"
    results.append(row)
    print(f"tessera-tiny tokenizer: {row['result']}  {row['detail']}")


def markdown(results, args, header):
    lines = [header, "",
             f"tessera `{args.tessera}`; {args.steps} greedy steps per prompt; reference: transformers fp32, eager "
             "attention, CPU (bf16 rows: weights rounded to bf16). Error: max over rows of max|tessera - reference| "
             f"/ max|reference|. PASS: f32 < {TOLERANCE['f32']:g} with identical tokens, bf16 < {TOLERANCE['bf16']:g}.",
             "", "| model | device | dtype | max rel err | tokens identical | result | transformers bf16 err | notes |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        notes = "; ".join(x for x in (r.get("note", ""), r.get("detail", "")) if x).replace("|", "\\|")
        notes = notes.replace("\n", " ")
        lines.append(f"| {r['model']} | {r['device']} | {r['dtype']} | {fmt_err(r['max_rel_err'])} | "
                     f"{'yes' if r['tokens_identical'] else 'no'} | {r['result']} | "
                     f"{fmt_err(r.get('hf_bf16_err'))} | {notes} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    args = parse_args(argv)
    import torch
    import transformers

    torch.set_num_threads(max(1, min(8, os.cpu_count() or 1)))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="tessera-parity-"))
    work.mkdir(parents=True, exist_ok=True)
    header = (f"# Logits parity: tessera vs transformers {transformers.__version__} (torch {torch.__version__})")
    print(header)
    results = []
    t0 = time.time()
    try:
        for arch in args.archs:
            model_dir = work / arch
            try:
                note = build_random_model(arch, model_dir, args.seed)
            except Exception as e:
                for device in args.devices:
                    for dtype in args.dtypes:
                        results.append(dict(model=arch, note="", device=device, dtype=dtype, max_rel_err=None,
                                            tokens_identical=False, result="FAIL",
                                            detail=f"building the transformers model failed: {type(e).__name__}: {e}"))
                print(f"{arch}: cannot build: {e}")
                continue
            vocab = json.loads((model_dir / "config.json").read_text())["vocab_size"]
            check_model(arch, note, model_dir, prompts_for(arch, vocab, args.seed), args, work, results)
        if args.embedded:
            if (Path(args.embedded) / "config.json").exists():
                check_model("tessera-tiny", "embedded default model", Path(args.embedded),
                            embedded_prompts(args.embedded), args, work, results)
                check_tokenizer(Path(args.embedded), args, results)
            else:
                print(f"embedded model {args.embedded} not found: skipped")
                for device in args.devices:
                    for dtype in args.dtypes:
                        results.append(dict(model="tessera-tiny", note="", device=device, dtype=dtype,
                                            max_rel_err=None, tokens_identical=False, result="SKIP",
                                            detail=f"{args.embedded} not found"))
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    md = markdown(results, args, header)
    (out / "parity.md").write_text(md)
    (out / "parity.json").write_text(json.dumps(
        {"transformers": transformers.__version__, "torch": torch.__version__, "tessera": args.tessera,
         "steps": args.steps, "tolerance": TOLERANCE, "results": results}, indent=2) + "\n")
    print()
    print(md)
    failed = sum(r["result"] == "FAIL" for r in results)
    print(f"{len(results)} rows, {failed} failed, {time.time() - t0:.1f} s; written to {out}/parity.md and parity.json")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
