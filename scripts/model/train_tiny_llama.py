#!/usr/bin/env python3
"""Trains tessera's embedded default model: a byte-level BPE tokenizer and a small Llama on the King James
Bible, saved as a Hugging Face directory of at most 10 MB (models/tessera-tiny/).

Runs on the GPU machine (torch, transformers, tokenizers; no network). The corpus comes from
scripts/model/prepare_text.sh, run beforehand on a machine with apt and carried over.

    python3 scripts/model/train_tiny_llama.py --corpus .dev-model/corpus.txt --out models/tessera-tiny

Steps: read the corpus (chapters separated by blank lines; every 20th chapter is held out for validation),
train the tokenizer, tokenize, train the model in bf16 autocast with AdamW (warmup + cosine) for a fixed time
budget (or a fixed number of steps with --steps, which makes the run repeatable), keep the weights with the
best validation loss, save them in bf16 with the tokenizer, reload the directory with transformers and print
greedy samples.
"""
import argparse
import json
import math
import os
import random
import sys
import time
from pathlib import Path

BOS = "<|begin_of_text|>"
EOS = "<|end_of_text|>"
SIZE_LIMIT_BYTES = 10_000_000
SAMPLE_PROMPTS = ["In the beginning", "And the LORD said unto Moses,", "Blessed are the", "For God so loved"]


# The GPU machine has no network: never let transformers or huggingface_hub try to reach the Hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", default=".dev-model/corpus.txt", help="plain text from prepare_text.sh")
    p.add_argument("--out", default="models/tessera-tiny", help="output Hugging Face directory (replaced)")
    p.add_argument("--time-budget", type=float, default=240.0, help="seconds of training (default 240)")
    p.add_argument("--steps", type=int, default=0, help="train exactly this many steps instead (repeatable)")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--vocab-size", type=int, default=4096)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--layers", type=int, default=6)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--kv-heads", type=int, default=4)
    p.add_argument("--intermediate", type=int, default=512)
    p.add_argument("--max-positions", type=int, default=512)
    p.add_argument("--batch", type=int, default=64, help="sequences per step")
    p.add_argument("--seq", type=int, default=512, help="tokens per sequence (<= --max-positions)")
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--min-lr-ratio", type=float, default=0.1, help="cosine floor as a fraction of --lr")
    p.add_argument("--warmup", type=int, default=100, help="warmup steps")
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--eval-every", type=int, default=100, help="steps between validation passes")
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--save-dtype", choices=["bfloat16", "float32"], default="bfloat16")
    p.add_argument("--sample-tokens", type=int, default=48)
    p.add_argument("--compile", action="store_true", help="torch.compile the training model")
    args = p.parse_args(argv)
    if args.seq > args.max_positions:
        p.error("--seq must not exceed --max-positions")
    if args.hidden % args.heads or args.heads % args.kv_heads:
        p.error("--hidden must be a multiple of --heads, and --heads a multiple of --kv-heads")
    return args


def read_chapters(path):
    text = Path(path).read_text(encoding="utf-8")
    chapters = [c.strip("\n") for c in text.split("\n\n")]
    return [c for c in chapters if c]


def split_chapters(chapters, every=20):
    """Every `every`-th chapter (from the 10th) is validation: spread over the whole book, fixed."""
    train = [c for i, c in enumerate(chapters) if i % every != every // 2]
    val = [c for i, c in enumerate(chapters) if i % every == every // 2]
    return train, val


def parameter_count(hidden, layers, heads, kv_heads, intermediate, vocab):
    """Parameters of a Llama with tied embeddings (what the saved file holds)."""
    head_dim = hidden // heads
    attention = hidden * hidden * 2 + hidden * kv_heads * head_dim * 2  # q, o; k, v
    mlp = 3 * hidden * intermediate
    norms = 2 * hidden
    return vocab * hidden + layers * (attention + mlp + norms) + hidden


def lr_at(step, total_steps, args):
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    progress = min(1.0, (step - args.warmup) / max(1, total_steps - args.warmup))
    floor = args.lr * args.min_lr_ratio
    return floor + (args.lr - floor) * 0.5 * (1.0 + math.cos(math.pi * progress))


def dir_size(path):
    return sum(f.stat().st_size for f in Path(path).iterdir() if f.is_file())


def train_tokenizer(train_chapters, vocab_size):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.BPE())
    # GPT-2 style: the GPT-2 split regex and the byte-to-character map, reversed by the ByteLevel decoder.
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=[BOS, EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(train_chapters, trainer=trainer, length=len(train_chapters))
    bos_id, eos_id = tok.token_to_id(BOS), tok.token_to_id(EOS)
    # Like Llama 3: encode() puts <|begin_of_text|> first.
    tok.post_processor = processors.TemplateProcessing(
        single=f"{BOS} $A", pair=f"{BOS} $A {BOS} $B", special_tokens=[(BOS, bos_id)]
    )
    return tok, bos_id, eos_id


def encode_chapters(tok, chapters, eos_id):
    ids = []
    for enc in tok.encode_batch(chapters):
        ids.extend(enc.ids)  # starts with BOS
        ids.append(eos_id)
    return ids


def write_tokenizer_files(tok, out, bos_id, eos_id, max_positions):
    tok.save(str(out / "tokenizer.json"), pretty=False)
    added = {
        str(bos_id): {"content": BOS, "lstrip": False, "normalized": False, "rstrip": False, "single_word": False, "special": True},
        str(eos_id): {"content": EOS, "lstrip": False, "normalized": False, "rstrip": False, "single_word": False, "special": True},
    }
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": BOS,
        "eos_token": EOS,
        "model_max_length": max_positions,
        "clean_up_tokenization_spaces": False,
        "added_tokens_decoder": added,
    }
    (out / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n")


def greedy_ids(model, torch, prompt_ids, new_tokens):
    """Greedy continuation with transformers' generate(); a plain argmax loop if generate() refuses."""
    x = torch.tensor([prompt_ids], dtype=torch.long, device=model.device)
    try:
        out = model.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=new_tokens, do_sample=False,
                             pad_token_id=model.config.eos_token_id)
        return out[0, len(prompt_ids):].tolist()
    except Exception as e:  # keep the sanity check alive on an API change
        print(f"  (generate() failed: {type(e).__name__}: {e}; using an argmax loop)")
        ids = list(prompt_ids)
        for _ in range(new_tokens):
            logits = model(input_ids=torch.tensor([ids], device=model.device)).logits[0, -1]
            ids.append(int(logits.argmax()))
        return ids[len(prompt_ids):]


def main(argv=None):
    args = parse_args(argv)
    import torch
    import torch.nn.functional as F
    from transformers import AutoModelForCausalLM, GenerationConfig, LlamaConfig, LlamaForCausalLM

    t_start = time.time()
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    if not torch.cuda.is_available():
        sys.exit("train_tiny_llama: needs a CUDA GPU")
    device = torch.device("cuda")
    torch.backends.cuda.matmul.allow_tf32 = True

    # Fail before any work if the model cannot fit the size limit in the chosen dtype.
    n_params = parameter_count(args.hidden, args.layers, args.heads, args.kv_heads, args.intermediate, args.vocab_size)
    bytes_per = 2 if args.save_dtype == "bfloat16" else 4
    if n_params * bytes_per + 400_000 > SIZE_LIMIT_BYTES:
        sys.exit(f"train_tiny_llama: {n_params} parameters in {args.save_dtype} would exceed {SIZE_LIMIT_BYTES} bytes")
    print(f"model: {n_params / 1e6:.2f}M parameters, {n_params * bytes_per / 1e6:.2f} MB in {args.save_dtype}")

    if not Path(args.corpus).is_file():
        sys.exit(f"train_tiny_llama: no corpus at {args.corpus}; run scripts/model/prepare_text.sh first")
    chapters = read_chapters(args.corpus)
    train_chapters, val_chapters = split_chapters(chapters)
    print(f"corpus: {len(chapters)} chapters ({len(train_chapters)} train, {len(val_chapters)} validation)")

    t0 = time.time()
    tok, bos_id, eos_id = train_tokenizer(train_chapters, args.vocab_size)
    vocab = tok.get_vocab_size()
    for c in val_chapters[:20]:  # byte-level BPE must be lossless
        assert tok.decode(tok.encode(c).ids, skip_special_tokens=True) == c, "tokenizer round trip failed"
    train_ids = encode_chapters(tok, train_chapters, eos_id)
    val_ids = encode_chapters(tok, val_chapters, eos_id)
    print(f"tokenizer: vocab {vocab} (bos {bos_id}, eos {eos_id}), {len(train_ids)} train / {len(val_ids)} "
          f"validation tokens, {sum(map(len, train_chapters)) / len(train_ids):.2f} chars per token, "
          f"{time.time() - t0:.1f} s")

    config = LlamaConfig(
        vocab_size=vocab,
        hidden_size=args.hidden,
        intermediate_size=args.intermediate,
        num_hidden_layers=args.layers,
        num_attention_heads=args.heads,
        num_key_value_heads=args.kv_heads,
        max_position_embeddings=args.max_positions,
        rms_norm_eps=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        tie_word_embeddings=True,
        bos_token_id=bos_id,
        eos_token_id=eos_id,
        attention_bias=False,
        mlp_bias=False,
    )
    model = LlamaForCausalLM(config).to(device)
    actual_params = sum(p.numel() for p in model.parameters())  # tied weights are counted once
    if actual_params != n_params:  # the size check after saving is what counts; say so early though
        print(f"WARNING: {actual_params} parameters, expected {n_params}")
    train_model = torch.compile(model) if args.compile else model

    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": args.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=args.lr, betas=(0.9, 0.95), eps=1e-8, fused=True,
    )

    train_t = torch.tensor(train_ids, dtype=torch.long, device=device)
    val_t = torch.tensor(val_ids, dtype=torch.long, device=device)
    gen = torch.Generator(device=device)
    gen.manual_seed(args.seed)

    def batch():
        starts = torch.randint(0, len(train_t) - args.seq - 1, (args.batch,), generator=gen, device=device)
        idx = starts[:, None] + torch.arange(args.seq + 1, device=device)[None, :]
        chunk = train_t[idx]
        return chunk[:, :-1], chunk[:, 1:]

    def loss_of(m, x, y):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = m(input_ids=x).logits
        return F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), y.reshape(-1))

    @torch.no_grad()
    def validation_loss():
        model.eval()
        n = (len(val_t) - 1) // args.seq
        x_all = val_t[: n * args.seq].view(n, args.seq)
        y_all = val_t[1 : n * args.seq + 1].view(n, args.seq)
        total = 0.0
        for i in range(0, n, args.batch):
            x, y = x_all[i : i + args.batch], y_all[i : i + args.batch]
            total += float(loss_of(model, x, y)) * x.shape[0]
        model.train()
        return total / n

    def evaluate(step, best):
        """Validation loss now; returns the best (loss, step, weights) so far."""
        v = validation_loss()
        mark = ""
        if v < best[0]:
            best = (v, step, {k: t.detach().clone() for k, t in model.state_dict().items()})
            mark = "  (best)"
        print(f"step {step:6d}  validation loss {v:.4f}  perplexity {math.exp(v):.2f}{mark}", flush=True)
        return best

    # Steps: fixed with --steps; otherwise estimated from the speed of the first steps to fill the budget.
    total_steps = args.steps if args.steps > 0 else None
    calibrate_steps = 20
    model.train()
    best = (float("inf"), -1, None)
    t_train = time.time()
    t_calib = None
    step = 0
    last_eval = 0
    while True:
        if total_steps is not None and step >= total_steps:
            break
        if args.steps <= 0 and time.time() - t_train > args.time_budget:
            print(f"time budget reached at step {step}")
            break
        lr = lr_at(step, total_steps or 10**9, args)
        for g in opt.param_groups:
            g["lr"] = lr
        x, y = batch()
        loss = loss_of(train_model, x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        if total_steps is None and step == 3:
            torch.cuda.synchronize()
            t_calib = time.time()
        if total_steps is None and step == 3 + calibrate_steps:
            torch.cuda.synchronize()
            per_step = (time.time() - t_calib) / calibrate_steps
            # 5% of the time left is kept for the validation passes; the budget stops the loop in any case.
            left = args.time_budget - (time.time() - t_train)
            total_steps = step + max(1, int(0.95 * left / per_step))
            print(f"{per_step * 1000:.1f} ms per step: training {total_steps} steps "
                  f"({total_steps * args.batch * args.seq / len(train_ids):.1f} epochs)")
        if step % args.log_every == 0:
            print(f"step {step:6d}  loss {float(loss):.4f}  lr {lr:.2e}  {time.time() - t_train:6.1f} s", flush=True)
        if step % args.eval_every == 0 or (total_steps is not None and step == total_steps):
            best = evaluate(step, best)
            last_eval = step
    if last_eval != step and step > 0:
        best = evaluate(step, best)
    if best[2] is None:
        sys.exit("train_tiny_llama: no training step ran; raise --time-budget or --steps")
    model.load_state_dict(best[2])
    print(f"training: {step} steps in {time.time() - t_train:.1f} s; keeping step {best[1]} "
          f"(validation loss {best[0]:.4f}, perplexity {math.exp(best[0]):.2f})")

    # Save: weights in the chosen dtype, config (dtype recorded), generation config and tokenizer files.
    out = Path(args.out)
    if out.exists():
        for f in out.iterdir():
            if f.is_file():
                f.unlink()
    out.mkdir(parents=True, exist_ok=True)
    save_dtype = getattr(torch, args.save_dtype)
    model.eval()
    model.to(save_dtype)
    model.generation_config = GenerationConfig(bos_token_id=bos_id, eos_token_id=eos_id, max_length=args.max_positions)
    model.save_pretrained(str(out))
    cfg_path = out / "config.json"
    cfg = json.loads(cfg_path.read_text())
    if cfg.get("dtype", cfg.get("torch_dtype")) != args.save_dtype:
        cfg["dtype"] = args.save_dtype
        cfg_path.write_text(json.dumps(cfg, indent=2, sort_keys=True) + "\n")
    write_tokenizer_files(tok, out, bos_id, eos_id, args.max_positions)
    (out / "README.md").write_text(
        "# tessera-tiny\n\n"
        f"A {n_params / 1e6:.1f}M-parameter Llama ({args.layers} layers, hidden {args.hidden}, {args.heads} heads, "
        f"{args.kv_heads} KV heads, intermediate {args.intermediate}, tied embeddings, {args.save_dtype}) with a "
        f"{vocab}-token byte-level BPE tokenizer, trained from scratch on the King James Bible (public domain; "
        "Debian package bible-kjv-text) by scripts/model/train_tiny_llama.py "
        f"(seed {args.seed}, {best[1]} steps of {args.batch}x{args.seq} tokens). Validation loss "
        f"{best[0]:.3f} (perplexity {math.exp(best[0]):.1f}) on every 20th chapter. It writes Bible-like English "
        "and knows nothing else: it exists to test and demonstrate the engine.\n"
    )
    expected = {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "generation_config.json"}
    present = {f.name for f in out.iterdir()}
    assert expected <= present, f"missing files: {sorted(expected - present)}"
    size = dir_size(out)
    for f in sorted(out.iterdir()):
        print(f"  {f.name:24s} {f.stat().st_size:10d} bytes")
    assert size <= SIZE_LIMIT_BYTES, f"{out} holds {size} bytes, over the {SIZE_LIMIT_BYTES} limit"
    print(f"saved {out} ({size / 1e6:.2f} MB)")

    # Sanity check from the saved files: reload with transformers (fp32, eager) and continue a few prompts.
    reloaded = AutoModelForCausalLM.from_pretrained(str(out), dtype=torch.float32, attn_implementation="eager").to(device)
    reloaded.eval()
    try:
        from transformers import AutoTokenizer

        hf_tok = AutoTokenizer.from_pretrained(str(out))
        same = hf_tok(SAMPLE_PROMPTS[1])["input_ids"] == tok.encode(SAMPLE_PROMPTS[1]).ids
        print(f"AutoTokenizer loads the directory; ids {'match' if same else 'DIFFER from'} the tokenizers library")
    except Exception as e:
        print(f"WARNING: AutoTokenizer could not load {out}: {type(e).__name__}: {e}")
    with torch.no_grad():
        v_ids = val_ids[: args.seq + 1]
        x = torch.tensor([v_ids[:-1]], device=device)
        y = torch.tensor([v_ids[1:]], device=device)
        reload_loss = float(F.cross_entropy(reloaded(input_ids=x).logits[0].float(), y[0]))
        print(f"reloaded model: loss {reload_loss:.4f} on the first validation window")
        for prompt in SAMPLE_PROMPTS:
            ids = tok.encode(prompt).ids
            new = greedy_ids(reloaded, torch, ids, args.sample_tokens)
            print(f"--- {prompt!r} -> ids {ids}\n{prompt}{tok.decode(new, skip_special_tokens=False)}")
    print(f"done in {time.time() - t_start:.1f} s")


if __name__ == "__main__":
    main()
