#include "apps/tessera/model_args.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "tessera/runtime/error.h"

namespace tessera::cli {

void add_graph_flags(CLI::App* cmd, GraphArgs& a) {
  auto* on = cmd->add_flag("--cuda-graph", a.on, "replay decode steps as CUDA graphs (--device cuda; the default there)");
  cmd->add_flag("--no-cuda-graph", a.off, "launch each kernel of a decode step instead of replaying CUDA graphs")->excludes(on);
}

void add_model_options(CLI::App* cmd, ModelArgs& a, bool allow_random_weights) {
  cmd->add_option("--model", a.model_dir, "model directory (config.json, model.safetensors, tokenizer.json)")->required();
  cmd->add_option("--device", a.device, "cpu or cuda (cuda:N)");
  cmd->add_option("--dtype", a.dtype, "compute dtype: f32, bf16 or f16 (default: f32 on cpu, bf16 on cuda)");
  if (allow_random_weights) {
    cmd->add_flag("--random-weights", a.random_weights, "random weights from config.json alone (no checkpoint)");
    cmd->add_option("--weight-seed", a.weight_seed, "seed of --random-weights");
  }
}

engine::ModelOptions model_options(const ModelArgs& a) {
  engine::ModelOptions o;
  if (a.device == "cpu") o.device = Device::cpu();
  else if (a.device == "cuda") o.device = Device::cuda(0);
  else if (a.device.rfind("cuda:", 0) == 0 && a.device.size() > 5 &&
           a.device.find_first_not_of("0123456789", 5) == std::string::npos)
    o.device = Device::cuda(std::stoi(a.device.substr(5)));
  else invalid_argument("--device " + a.device + " is not cpu, cuda or cuda:N");
  if (!a.dtype.empty()) {
    const auto d = dtype_from_name(a.dtype);
    if (!d || (*d != DType::f32 && *d != DType::f16 && *d != DType::bf16))
      invalid_argument("--dtype " + a.dtype + " is not one of f32, bf16, f16");
    o.dtype = *d;
  }
  return o;
}

engine::Model open_model(const ModelArgs& a) {
  const engine::ModelOptions o = model_options(a);
  const auto start = std::chrono::steady_clock::now();
  engine::Model m = a.random_weights ? engine::random_model(engine::load_config(a.model_dir), o, a.weight_seed)
                                     : engine::load_model(a.model_dir, o);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "tessera: %s model %s (%s, %d layers) on %s in %s, %.2f s\n", a.random_weights ? "random" : "loaded",
               a.model_dir.c_str(), engine::arch_name(m.config.arch), m.config.num_layers, m.device.str().c_str(),
               std::string(dtype_name(m.dtype)).c_str(), s);
  return m;
}

std::optional<engine::Tokenizer> open_tokenizer(const ModelArgs& a) {
  // The directory first: a mistyped --model should say so, not that it lacks a tokenizer.
  if (!std::filesystem::is_directory(a.model_dir)) invalid_argument("model: '" + a.model_dir + "' is not a directory");
  const auto path = std::filesystem::path(a.model_dir) / "tokenizer.json";
  if (!std::filesystem::exists(path)) return std::nullopt;
  return engine::Tokenizer::load(path.string());
}

void write_text(const std::string& text) {
  if (!text.empty()) std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

std::vector<int> parse_id_list(const std::string& text, const std::string& flag) {
  std::vector<int> ids;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = text.find(',', at);
    const std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    size_t used = 0;
    long v = -1;
    try {
      v = std::stol(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || v < 0 || v > INT32_MAX)
      invalid_argument(flag + " '" + text + "': '" + item + "' is not a token id (a comma-separated list of non-negative integers)");
    ids.push_back(int(v));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return ids;
}

}  // namespace tessera::cli
