#!/usr/bin/env python3
"""Baseline for the engine's performance report: Hugging Face transformers running Llama-3.1-8B shapes with
random bf16 weights on one GPU, timed with CUDA events.

    python3 scripts/model/bench_transformers.py --out $OUT/bench_transformers

Measures
  - prefill: one prompt of 2048 tokens (median of 5 after 2 warm-ups; only the last position's logits, as
    generate() does), in tokens/s;
  - decode: batch 1, 8 and 32 after a 128-token prompt; 8 warm-up steps, then 64 timed greedy steps (forward of
    one token per sequence + argmax), median per step, tokens/s = batch / median;
  both eagerly (no compilation, sdpa attention, DynamicCache), and decode again with a StaticCache and
  torch.compile(mode="reduce-overhead") (CUDA graphs). A compiled measurement that fails is reported with its
  error instead of stopping the run.
Writes OUT/bench_transformers.json and OUT/bench_transformers.md and prints the table.
Expected time on an H200: about 1 minute for the eager part, 2-4 minutes more for the compiled decode
(compilation dominates); --skip-compile leaves that out. --deadline (default 420 s) skips compiled batches that
would start after it.
"""
import argparse
import inspect
import json
import os
import statistics
import sys
import time
import traceback
from pathlib import Path

LLAMA_3_1_8B = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "vocab_size": 128256,
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "hidden_act": "silu",
    "max_position_embeddings": 131072,
    "rms_norm_eps": 1e-5,
    "rope_parameters": {
        "rope_type": "llama3",
        "rope_theta": 500000.0,
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    },
    "tie_word_embeddings": False,
    "attention_bias": False,
    "mlp_bias": False,
    "bos_token_id": 128000,
    "eos_token_id": 128001,
}


# The GPU machine has no network: never let transformers or huggingface_hub try to reach the Hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="out/bench_transformers")
    p.add_argument("--prefill", type=int, default=2048, help="prefill prompt length")
    p.add_argument("--prompt", type=int, default=128, help="prompt length before decoding")
    p.add_argument("--batches", default="1,8,32")
    p.add_argument("--decode-steps", type=int, default=64)
    p.add_argument("--warmup-steps", type=int, default=8)
    p.add_argument("--layers", type=int, default=0, help="override the layer count (quick trials only)")
    p.add_argument("--skip-compile", action="store_true")
    p.add_argument("--deadline", type=float, default=420.0, help="seconds after start past which no compiled "
                   "measurement is started")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    args.batches = [int(b) for b in args.batches.split(",") if b]
    return args


def build_model(torch, layers):
    """Llama-3.1-8B shapes, bf16, random N(0, 0.02) weights and unit norms, built on the meta device and
    materialised on the GPU (no CPU copy, no checkpoint)."""
    import transformers
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = dict(LLAMA_3_1_8B)
    if layers:
        cfg["num_hidden_layers"] = layers
    cfg = {k: v for k, v in cfg.items() if k not in ("architectures", "model_type")}
    config = LlamaConfig(**cfg)
    with torch.device("meta"):
        model = LlamaForCausalLM(config)
    model = model.to(dtype=torch.bfloat16).to_empty(device="cuda")
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() >= 2:
                p.normal_(0.0, 0.02)
            else:
                p.fill_(1.0)
        # Buffers (the RoPE frequencies) are not parameters: to_empty left them uninitialised. Recompute them.
        rotary_cls = type(model.model.rotary_emb)
        model.model.rotary_emb = rotary_cls(config=model.config, device=torch.device("cuda"))
    others = [n for n, _ in model.named_buffers() if not n.startswith("model.rotary_emb.")]
    if others:
        raise RuntimeError(f"uninitialised buffers after to_empty: {others}")
    try:
        model.set_attn_implementation("sdpa")
    except Exception:
        pass  # older transformers: sdpa is the default when available
    model.eval()
    n_params = sum(p.numel() for p in model.parameters())
    return model, n_params, getattr(model.config, "_attn_implementation", "?"), transformers.__version__


def cuda_time_ms(torch, fn):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def bench_prefill(torch, model, length, seed):
    gen = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randint(0, model.config.vocab_size, (1, length), device="cuda", generator=gen)
    kwargs = {"logits_to_keep": 1}

    def run():
        model(input_ids=x, use_cache=True, **kwargs)

    with torch.no_grad():
        try:
            run()
        except TypeError:  # a transformers without logits_to_keep: all logits
            kwargs = {}
            run()
        run()
        times = [cuda_time_ms(torch, run) for _ in range(5)]
    ms = statistics.median(times)
    return {"work": "prefill", "mode": "eager", "batch": 1, "tokens": length, "median_ms": ms,
            "tokens_per_s": length / ms * 1000.0, "all_logits": not kwargs,
            "tflops": 2.0 * model.num_parameters() * length / (ms / 1000.0) / 1e12}


def make_static_cache(torch, config, batch, max_len):
    """A StaticCache across transformers versions (v5: config + max_cache_len; v4: also batch, device, dtype)."""
    from transformers import StaticCache

    params = inspect.signature(StaticCache.__init__).parameters
    kw = {"config": config, "max_cache_len": max_len}
    for name, value in (("max_batch_size", batch), ("batch_size", batch), ("device", torch.device("cuda")),
                        ("dtype", torch.bfloat16)):
        if name in params:
            kw[name] = value
    return StaticCache(**kw)


def bench_decode(torch, model, batch, args, compiled_model=None):
    """Greedy decode steps after a prompt; returns per-step median ms and tokens/s."""
    gen = torch.Generator(device="cuda").manual_seed(args.seed + batch)
    prompt = torch.randint(0, model.config.vocab_size, (batch, args.prompt), device="cuda", generator=gen)
    total = args.prompt + args.warmup_steps + args.decode_steps
    times = []
    with torch.no_grad():
        if compiled_model is None:
            out = model(input_ids=prompt, use_cache=True)
            cache = out.past_key_values
            tok = out.logits[:, -1:, :].argmax(-1)

            def step():
                nonlocal tok
                o = model(input_ids=tok, past_key_values=cache, use_cache=True)
                tok = o.logits[:, -1:, :].argmax(-1)
        else:
            cache = make_static_cache(torch, model.config, batch, total + 8)
            # The prompt runs eagerly into the static cache; the decode steps run the compiled model.
            out = model(input_ids=prompt, past_key_values=cache, use_cache=True,
                        cache_position=torch.arange(args.prompt, device="cuda"))
            tok = out.logits[:, -1:, :].argmax(-1)
            pos = args.prompt

            def step():
                nonlocal tok, pos
                # Each call replays CUDA graphs whose outputs are overwritten by the next replay: mark the step,
                # and take what is needed (the argmax, a fresh tensor) before the next call.
                torch.compiler.cudagraph_mark_step_begin()
                o = compiled_model(input_ids=tok, past_key_values=cache, use_cache=True,
                                   cache_position=torch.tensor([pos], device="cuda"))
                tok = o.logits[:, -1:, :].argmax(-1).clone()
                pos += 1
        for _ in range(args.warmup_steps):
            step()
        torch.cuda.synchronize()
        for _ in range(args.decode_steps):
            times.append(cuda_time_ms(torch, step))
    ms = statistics.median(times)
    return {"work": "decode", "mode": "eager" if compiled_model is None else "static cache + torch.compile",
            "batch": batch, "tokens": args.decode_steps, "median_ms": ms, "tokens_per_s": batch / ms * 1000.0,
            "min_ms": min(times), "max_ms": max(times)}


def markdown(report):
    lines = [f"# transformers baseline: Llama-3.1-8B shapes, random bf16 weights",
             "", f"{report['gpu']}; torch {report['torch']}, transformers {report['transformers']}, "
             f"attention {report['attention']}; {report['parameters'] / 1e9:.2f}B parameters. "
             "Medians of CUDA-event timings.", "",
             "| work | mode | batch | median per step | tokens/s | notes |", "| --- | --- | --- | --- | --- | --- |"]
    for r in report["results"]:
        if "error" in r:
            lines.append(f"| {r['work']} | {r['mode']} | {r['batch']} | - | - | FAILED: "
                         f"{r['error'].splitlines()[0][:200].replace('|', '/')} |")
            continue
        if r.get("skipped"):
            lines.append(f"| {r['work']} | {r['mode']} | {r['batch']} | - | - | skipped: {r['skipped']} |")
            continue
        note = ""
        if r["work"] == "prefill":
            note = f"{r['tokens']} tokens, {r['tflops']:.0f} TFLOP/s (2 x params x tokens)"
            if r.get("all_logits"):
                note += ", logits for all positions"
        else:
            note = f"prompt {report['prompt']}, {r['tokens']} steps (min {r['min_ms']:.2f} ms, max {r['max_ms']:.2f} ms)"
        lines.append(f"| {r['work']} | {r['mode']} | {r['batch']} | {r['median_ms']:.2f} ms | "
                     f"{r['tokens_per_s']:,.1f} | {note} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    args = parse_args(argv)
    t0 = time.time()
    import torch

    if not torch.cuda.is_available():
        sys.exit("bench_transformers: needs a CUDA GPU")
    torch.manual_seed(args.seed)
    model, n_params, attention, tf_version = build_model(torch, args.layers)
    print(f"model built in {time.time() - t0:.1f} s: {n_params / 1e9:.2f}B parameters, attention {attention}",
          flush=True)
    report = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "transformers": tf_version,
              "attention": attention, "parameters": n_params, "config": LLAMA_3_1_8B, "prompt": args.prompt,
              "layers": model.config.num_hidden_layers, "results": []}

    def record(r):
        report["results"].append(r)
        if "error" in r:
            print(f"{r['work']:8s} {r['mode']:30s} batch {r['batch']:3d}: FAILED {r['error'].splitlines()[0][:300]}")
        elif r.get("skipped"):
            print(f"{r['work']:8s} {r['mode']:30s} batch {r['batch']:3d}: skipped ({r['skipped']})")
        else:
            print(f"{r['work']:8s} {r['mode']:30s} batch {r['batch']:3d}: {r['median_ms']:8.2f} ms  "
                  f"{r['tokens_per_s']:10.1f} tokens/s   [{time.time() - t0:.0f} s]", flush=True)

    try:
        record(bench_prefill(torch, model, args.prefill, args.seed))
    except Exception as e:
        record({"work": "prefill", "mode": "eager", "batch": 1, "error": f"{type(e).__name__}: {e}"})
    for b in args.batches:
        try:
            record(bench_decode(torch, model, b, args))
        except Exception as e:
            record({"work": "decode", "mode": "eager", "batch": b, "error": f"{type(e).__name__}: {e}"})
        torch.cuda.empty_cache()

    mode = "static cache + torch.compile"
    if not args.skip_compile:
        compiled = torch.compile(model, mode="reduce-overhead", fullgraph=False)
        failed = None
        for b in args.batches:
            if failed:
                record({"work": "decode", "mode": mode, "batch": b, "skipped": f"failed at batch {failed}"})
                continue
            if time.time() - t0 > args.deadline:
                record({"work": "decode", "mode": mode, "batch": b, "skipped": f"past the {args.deadline:.0f} s deadline"})
                continue
            t1 = time.time()
            try:
                r = bench_decode(torch, model, b, args, compiled_model=compiled)
                r["compile_and_run_s"] = time.time() - t1
                record(r)
            except Exception as e:
                failed = b
                tb = traceback.format_exc()
                print(tb[-3000:])
                record({"work": "decode", "mode": mode, "batch": b, "error": f"{type(e).__name__}: {e}"})
            torch.cuda.empty_cache()
    report["total_s"] = time.time() - t0

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench_transformers.json").write_text(json.dumps(report, indent=2) + "\n")
    md = markdown(report)
    (out / "bench_transformers.md").write_text(md)
    print()
    print(md)
    print(f"total {report['total_s']:.0f} s; written to {out}/bench_transformers.json and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
