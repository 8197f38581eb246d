// Generating tokens: prefill a batch of prompts, then decode steps, sampling each sequence's next token, until
// a stop token, a stop string, max_tokens or the end of the model's context. And the stop-string matcher for streamed text.
#pragma once
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "tessera/engine/forward.h"
#include "tessera/engine/model.h"
#include "tessera/engine/sampler.h"

namespace tessera::engine {

struct GenerateOptions {
  int max_tokens = 128;           // new tokens per sequence
  SamplerConfig sampler;          // each sequence samples with seed + its index in the batch
  std::vector<int> stop_ids;      // a sampled stop id ends its sequence (it is kept in the output ids)
  int page_size = 16;
  bool cuda_graphs = false;       // replay decode steps as CUDA graphs (CUDA models; see enable_cuda_graphs)
  // Whether the token callback sees each token's logits row. Without it, greedy sampling (temperature 0, no
  // repetition penalty) chooses tokens on the device and brings back only their ids; the callback then gets
  // an empty row.
  bool logits_to_callback = true;
  // Tokens a sequence may hold, its prompt and what it generates; a sequence that fills them ends there. 0:
  // the model's max_position_embeddings. More than that is allowed for rotary positions (at the caller's
  // risk: the model was not trained there), not for GPT-2's learned ones.
  int max_context = 0;
};

// The context a generation runs with: `max_context`, or the model's max_position_embeddings when it is 0.
// Throws (naming the value) where it is negative or, for GPT-2, past the model's positions.
int generation_context(const ModelConfig& config, int max_context);

// Called once per sampled token: sequence index, the token, and the logits row it was sampled from (empty
// unless GenerateOptions::logits_to_callback). Returning false ends that sequence (a stop string was seen, say).
using TokenCallback = std::function<bool(int sequence, int token, std::span<const float> logits)>;

// The generated ids of each prompt.
std::vector<std::vector<int>> generate(const Model& model, const std::vector<std::vector<int>>& prompts,
                                       const GenerateOptions& options, const TokenCallback& on_token = nullptr);

// Streamed text with stop strings: put() returns the text safe to show now, holding back any tail that could
// still grow into a stop string; once a stop string appears, stopped() is true and nothing from it on is
// returned.
class StopStringMatcher {
 public:
  explicit StopStringMatcher(std::vector<std::string> stops) : stops_(std::move(stops)) {}
  std::string put(const std::string& text);
  std::string flush();  // what is held back, at the end of generation
  bool stopped() const { return stopped_; }

 private:
  std::vector<std::string> stops_;
  std::string held_;
  bool stopped_ = false;
};

}  // namespace tessera::engine

namespace tessera::engine {

// The ids that end generation: generation_config.json's eos_token_id (an id or a list) when `model_dir` has
// one, else config.json's.
std::vector<int> stop_token_ids(const std::string& model_dir, const ModelConfig& config);

}  // namespace tessera::engine
