// `tessera bench-model`: time to first token, prefill and decode throughput of a model per batch size, on
// synthetic prompts (so --random-weights needs no tokenizer or checkpoint).
#include <chrono>
#include <cstdio>
#include <random>

#include "apps/tessera/commands.h"
#include "apps/tessera/model_args.h"
#include "tessera/engine/forward.h"
#include "tessera/runtime/error.h"
#include "tessera/tile/cuda/trace.h"

namespace tessera::cli {

namespace {
struct BenchArgs {
  ModelArgs model;
  int prompt_len = 2048;
  std::string batches = "1,8,32";
  int decode_steps = 64;
  int page_size = 16;
  bool cuda_graph = false;
  bool host_logits = false;
  std::string trace;  // the last decode step of the first batch size, as a per-block kernel timeline
};

// Decode steps run before the timed ones.
constexpr int kWarmupSteps = 2;
// Blocks a traced decode step may record: a few hundred launches of at most a few hundred blocks.
constexpr int64_t kTraceBlocks = int64_t(1) << 21;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void run_bench(const BenchArgs& a) {
  if (a.prompt_len <= 0) invalid_argument("--prompt-len must be > 0, got " + std::to_string(a.prompt_len));
  if (a.decode_steps < 0) invalid_argument("--decode-steps must be >= 0, got " + std::to_string(a.decode_steps));
  if (a.page_size <= 0) invalid_argument("--page-size must be > 0, got " + std::to_string(a.page_size));
  const std::vector<int> batch_sizes = parse_id_list(a.batches, "--batch");
  for (int b : batch_sizes)
    if (b <= 0) invalid_argument("--batch: batch sizes must be > 0");
  const engine::ModelOptions options = model_options(a.model);
  if (!a.trace.empty()) {
    namespace trace = tile::cuda::trace;
    if (!trace::available()) unsupported("--trace: this build records no kernel timeline (configure with -DTESSERA_TILE_TRACE=ON)");
    if (!options.device.is_cuda()) invalid_argument("--trace needs a CUDA device (--device cuda)");
    if (a.decode_steps <= 0) invalid_argument("--trace needs --decode-steps > 0");
  }
  const engine::Model model = open_model(a.model);
  const int V = model.config.vocab_size;
  std::printf("%-6s %10s %12s %14s %14s %12s %14s\n", "batch", "prompt", "ttft_ms", "prefill_tok/s", "decode_tok/s", "step_ms",
              "cold_ttft_ms");
  for (int B : batch_sizes) {
    engine::RunLimits lim;
    lim.max_batch = B;
    lim.max_tokens = B * a.prompt_len;
    lim.max_seq_len = a.prompt_len + a.decode_steps + kWarmupSteps + 1;
    lim.page_size = a.page_size;
    engine::PagedKvCache cache = engine::make_kv_cache(model, lim);
    engine::StepBuffers buffers = engine::make_step_buffers(model, lim);
    if (a.cuda_graph) engine::enable_cuda_graphs(model, buffers);
    std::mt19937 gen(1234);
    std::uniform_int_distribution<int> pick(0, V - 1);
    std::vector<std::vector<int>> prompts(static_cast<size_t>(B), std::vector<int>(static_cast<size_t>(a.prompt_len)));
    for (auto& p : prompts)
      for (auto& id : p) id = pick(gen);
    std::vector<engine::SequenceTokens> step;
    for (int i = 0; i < B; ++i) step.push_back({i, prompts[size_t(i)]});
    // The first prefill pays the one-time costs (module loading, the autotuner's first measurements, scratch
    // buffers): reported as cold_ttft. Then the prompts again from an empty cache, timed.
    std::fprintf(stderr, "bench-model: batch %d: prefill of %d x %d tokens (cold, then warm) ...\n", B, B, a.prompt_len);
    // Greedy tokens chosen on the device, as `tessera generate` does at temperature 0; --host-logits: every
    // step's logits copied back and the argmax taken here, as a sampler needs.
    const engine::StepResult result = a.host_logits ? engine::StepResult::logits : engine::StepResult::greedy_tokens;
    auto t0 = std::chrono::steady_clock::now();
    engine::forward(model, cache, buffers, step, result);  // returns after the tokens (or logits) reached the host
    const double cold_s = seconds_since(t0);
    for (int i = 0; i < B; ++i) engine::reset_sequence(cache, i);
    t0 = std::chrono::steady_clock::now();
    engine::forward(model, cache, buffers, step, result);
    const double prefill_s = seconds_since(t0);
    // Decode: one greedy token per sequence per step; the first steps (a CUDA graph's capture) are not timed.
    std::vector<int> next(static_cast<size_t>(B));
    double decode_s = 0;
    const int last_step = kWarmupSteps + a.decode_steps - 1;
    // Traced: the last step run eagerly, or with graphs from the capture on (kernels in a graph keep the
    // records they were captured with; the replays write them again, the last one stays).
    const bool traced = !a.trace.empty() && B == batch_sizes.front();
    const int trace_from = a.cuda_graph ? 1 : last_step;
    for (int s = 0; s <= last_step; ++s) {
      if (traced && s == trace_from) tile::cuda::trace::open(kTraceBlocks);
      for (int i = 0; i < B; ++i) {
        const float* row = buffers.host_logits.data() + size_t(i) * size_t(V);
        next[size_t(i)] = a.host_logits ? int(std::max_element(row, row + V) - row) : buffers.host_tokens[size_t(i)];
      }
      step.clear();
      for (int i = 0; i < B; ++i) step.push_back({i, std::span<const int>(&next[size_t(i)], 1)});
      const auto t = std::chrono::steady_clock::now();
      engine::forward(model, cache, buffers, step, result);
      const int timed = s + 1 - kWarmupSteps;
      if (timed <= 0) continue;
      decode_s += seconds_since(t);
      if (timed % 16 == 0 || timed == a.decode_steps)
        std::fprintf(stderr, "bench-model: batch %d: decode step %d/%d, %.2f ms/step\n", B, timed, a.decode_steps, 1e3 * decode_s / timed);
    }
    if (traced) {
      tile::cuda::trace::write_and_close(a.trace);
      std::fprintf(stderr, "bench-model: batch %d: kernel timeline of the last decode step in %s and %s.tsv\n", B, a.trace.c_str(), a.trace.c_str());
    }
    std::printf("%-6d %10d %12.2f %14.1f %14.1f %12.3f %14.2f\n", B, a.prompt_len, 1e3 * prefill_s, double(B) * a.prompt_len / prefill_s,
                a.decode_steps > 0 ? double(B) * a.decode_steps / decode_s : 0.0, a.decode_steps > 0 ? 1e3 * decode_s / a.decode_steps : 0.0,
                1e3 * cold_s);
    std::fflush(stdout);
  }
}
}  // namespace

void add_bench_model_command(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand("bench-model", "time to first token, prefill and decode tokens/s per batch size");
  add_model_options(cmd, a->model);
  cmd->add_option("--prompt-len", a->prompt_len, "prompt tokens per sequence (default 2048)");
  cmd->add_option("--batch", a->batches, "batch sizes, comma-separated (default 1,8,32)");
  cmd->add_option("--decode-steps", a->decode_steps, "decode steps timed per batch size (default 64)");
  cmd->add_option("--page-size", a->page_size, "KV cache page size in tokens (default 16)");
  cmd->add_flag("--cuda-graph", a->cuda_graph, "replay decode steps as CUDA graphs (--device cuda)");
  cmd->add_flag("--host-logits", a->host_logits, "copy every decode step's logits to the host (as sampling needs) instead of choosing the greedy token on the device");
  cmd->add_option("--trace", a->trace,
                  "write the last decode step of the first batch size as a per-block kernel timeline: FILE (Chrome trace JSON) "
                  "and FILE.tsv (a build configured with -DTESSERA_TILE_TRACE=ON)");
  cmd->callback([a] { run_bench(*a); });
}

}  // namespace tessera::cli
