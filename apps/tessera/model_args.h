// Options shared by the commands that run a model (generate, chat, bench-model): where the model is, the
// device and dtype, random weights; and opening the model and its tokenizer.
#pragma once
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "tessera/engine/model.h"
#include "tessera/engine/tokenizer.h"

namespace tessera::cli {

struct ModelArgs {
  std::string model_dir;
  std::string device = "cpu";
  std::string dtype;          // "" = the device's default
  bool random_weights = false;
  uint64_t weight_seed = 0;
};

void add_model_options(CLI::App* cmd, ModelArgs& args, bool allow_random_weights = true);

// Whether decode steps replay as CUDA graphs (generate, chat): by default on a GPU; --cuda-graph asks for them
// anywhere (on the CPU, enable_cuda_graphs says why they cannot be), --no-cuda-graph turns them off.
struct GraphArgs {
  bool on = false, off = false;
  bool use(const engine::Model& model) const { return on || (!off && model.device.is_cuda()); }
};
void add_graph_flags(CLI::App* cmd, GraphArgs& args);

// Checks the flags (exit code 2 via tessera::Error on a bad value) and returns the model options.
engine::ModelOptions model_options(const ModelArgs& args);
// Loads the model (or builds it from config.json with random weights). Reports the time on stderr.
engine::Model open_model(const ModelArgs& args);
// The tokenizer, when the model directory has a tokenizer.json.
std::optional<engine::Tokenizer> open_tokenizer(const ModelArgs& args);

// Writes generated text to stdout as bytes (it may hold NUL) and flushes, so the text streams.
void write_text(const std::string& text);

// "1,2,3" -> {1, 2, 3}; names the flag in errors.
std::vector<int> parse_id_list(const std::string& text, const std::string& flag);

}  // namespace tessera::cli
