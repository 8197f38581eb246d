// `tessera tune --model DIR | --config config.json [--m 1,16,128,2048] [--dtype bf16]`: fills the autotuner's
// cache ahead of time with the model's matmul shapes (qkv, o, gate_up, down, lm_head for each M), so the first
// request does not pay for tuning. Needs a GPU.
#include <cstdio>
#include <string>
#include <vector>

#include "apps/tessera/commands.h"
#include "bench/gpu_bench.h"
#include "ops/matmul/args.h"
#include "tessera/dispatch/autotune.h"
#include "tessera/engine/config.h"
#include "tessera/ops/matmul.h"
#include "tessera/runtime/error.h"

namespace tessera::cli {

namespace {
struct Projection { std::string name; long long n, k; };

std::vector<Projection> matmul_projections(const engine::ModelConfig& c) {
  const long long hidden = c.hidden_size, head_dim = c.head_dim;
  return {{"qkv", (c.num_heads + 2LL * c.num_kv_heads) * head_dim, hidden},
          {"o", hidden, c.num_heads * head_dim},
          {"gate_up", 2LL * c.intermediate_size, hidden},
          {"down", hidden, c.intermediate_size},
          {"lm_head", c.vocab_size, hidden}};
}
}  // namespace

void add_tune_command(CLI::App& app) {
  struct Args {
    std::string model, config, dtype = "bf16";
    std::vector<long long> ms = {1, 16, 128, 2048};
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("tune", "Fill the autotuner's cache for a model's matmul shapes (needs a GPU)");
  auto* model = cmd->add_option("--model", args->model, "model directory holding config.json");
  auto* config = cmd->add_option("--config", args->config, "a config.json");
  model->excludes(config);
  cmd->add_option("--m", args->ms, "token counts (rows of the activations) to tune for")->delimiter(',')->capture_default_str();
  cmd->add_option("--dtype", args->dtype, "bf16 or f16")->capture_default_str();
  cmd->callback([args] {
    if (args->model.empty() && args->config.empty()) invalid_argument("tessera tune: give --model DIR or --config FILE");
    const auto dtype = dtype_from_name(args->dtype);
    if (!dtype || (*dtype != DType::bf16 && *dtype != DType::f16))
      invalid_argument("tessera tune: --dtype must be bf16 or f16, not " + args->dtype);
    for (long long m : args->ms)
      if (m <= 0) invalid_argument("tessera tune: --m values must be positive");
    const engine::ModelConfig cfg = engine::load_config(args->model.empty() ? args->config : args->model);
    if (!built_with_cuda()) unsupported("tessera tune: this tessera was built without CUDA; tuning times kernels on a GPU");
    if (!cuda_available()) unsupported("tessera tune: no CUDA GPU is available on this machine; tuning times kernels on a GPU");

    namespace at = dispatch::autotune;
    at::set_enabled(true);  // this command exists to tune, whatever TESSERA_AUTOTUNE says
    const std::string file = at::cache_file();
    const auto before = at::read_cache_file(file);
    const auto projections = matmul_projections(cfg);
    const size_t total = projections.size() * args->ms.size();
    std::printf("tuning %zu matmul shapes of %s (%s) on %s\n", total, cfg.model_type.c_str(), args->dtype.c_str(),
                at::device_tag().c_str());
    size_t done = 0;
    Stream stream;
    for (const auto& p : projections) {
      Tensor w = Tensor::empty({p.n, p.k}, *dtype, Device::cuda());
      bench::fill_random(w, 1);
      for (long long m : args->ms) {
        Tensor x = Tensor::empty({m, p.k}, *dtype, Device::cuda()), y = Tensor::empty({m, p.n}, *dtype, Device::cuda());
        bench::fill_random(x, 2);
        ops::matmul(x, w, y, ops::BLayout::nk, {}, {dispatch::Backend::tile_cuda, stream.handle()});
        stream.synchronize();
        const auto key = ops::matmul_tune_key(*dtype, m, p.n, p.k);
        const auto mem = at::memory_entries();
        const auto it = mem.find(key.str());
        std::printf("[%zu/%zu] %-8s M=%-5lld N=%-6lld K=%-6lld ", ++done, total, p.name.c_str(), m, p.n, p.k);
        if (it == mem.end()) {
          // Every candidate failed to launch (or a choice is forced): worth a non-zero exit.
          std::printf("NOT TUNED: no candidate ran (or TESSERA_AUTOTUNE_FORCE is set); the heuristic is used\n");
          set_exit_code(1);
        } else
          std::printf("%-18s %10.2f us%s\n", it->second.choice.c_str(), it->second.us,
                      before.count(key.str()) ? "  (already cached)" : "");
        std::fflush(stdout);
      }
    }
    std::printf("cache: %s\n", file.c_str());
  });
}

}  // namespace tessera::cli
