// The generation loop and the stop-string matcher.
#include "tessera/engine/generate.h"

#include <algorithm>
#include <limits>
#include <string>

namespace tessera::engine {

int generation_context(const ModelConfig& config, int max_context) {
  check(max_context >= 0, "generate: max_context must be >= 0 (0: the model's max_position_embeddings), got " + std::to_string(max_context));
  const int trained = config.max_position_embeddings;
  if (max_context == 0) return trained > 0 ? trained : std::numeric_limits<int>::max();
  if (config.arch == Arch::gpt2 && max_context > trained)
    invalid_argument("generate: max_context " + std::to_string(max_context) + " is past GPT-2's " + std::to_string(trained) +
                     " learned positions (n_positions)");
  return max_context;
}

std::vector<std::vector<int>> generate(const Model& model, const std::vector<std::vector<int>>& prompts,
                                       const GenerateOptions& options, const TokenCallback& on_token) {
  check(!prompts.empty(), "generate: no prompts");
  check(options.max_tokens >= 0, "generate: max_tokens must be >= 0");
  validate(options.sampler);
  const int V = model.config.vocab_size;
  const int context = generation_context(model.config, options.max_context);
  size_t total = 0, longest = 0;
  for (size_t i = 0; i < prompts.size(); ++i) {
    const auto& p = prompts[i];
    check(!p.empty(), "generate: an empty prompt (it needs at least one token)");
    // Room for at least one generated token.
    if (options.max_tokens > 0 && p.size() >= size_t(context))
      invalid_argument("generate: prompt " + std::to_string(i) + " has " + std::to_string(p.size()) + " tokens; the context holds " +
                       std::to_string(context) + " (max_context, else the model's max_position_embeddings), the prompt and what it generates");
    total += p.size();
    longest = std::max(longest, p.size());
  }
  RunLimits limits;
  limits.max_batch = int(prompts.size());
  limits.max_tokens = int(std::max(total, prompts.size()));
  limits.max_seq_len = int(std::min<int64_t>(int64_t(longest) + options.max_tokens, std::max<int64_t>(context, int64_t(longest))));
  limits.page_size = options.page_size;
  PagedKvCache cache = make_kv_cache(model, limits);
  StepBuffers buffers = make_step_buffers(model, limits);
  if (options.cuda_graphs) enable_cuda_graphs(model, buffers);

  const int n = int(prompts.size());
  std::vector<std::vector<int>> out(static_cast<size_t>(n));
  std::vector<std::vector<int>> history(prompts.begin(), prompts.end());
  std::vector<Sampler> samplers;
  for (int i = 0; i < n; ++i) {
    SamplerConfig sc = options.sampler;
    sc.seed += uint64_t(i);
    samplers.emplace_back(sc);
  }
  if (options.max_tokens == 0) return out;

  // Prefill every prompt in one step.
  std::vector<SequenceTokens> step;
  for (int i = 0; i < n; ++i) step.push_back({i, prompts[size_t(i)]});
  std::vector<int> live(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) live[size_t(i)] = i;
  std::vector<int> next(static_cast<size_t>(n));
  // Greedy choice is the argmax, on the device or here alike (the smallest index of the largest logit).
  const bool device_greedy = options.sampler.temperature == 0 && options.sampler.repetition_penalty == 1 && !options.logits_to_callback;
  const StepResult result = device_greedy ? StepResult::greedy_tokens : StepResult::logits;
  forward(model, cache, buffers, step, result);
  for (;;) {
    // Sample each live sequence's token from its row of the last step's logits.
    std::vector<int> still;
    for (size_t r = 0; r < live.size(); ++r) {
      const int i = live[r];
      const std::span<const float> row = device_greedy ? std::span<const float>()
                                                       : std::span<const float>(buffers.host_logits.data() + r * size_t(V), size_t(V));
      const int token = device_greedy ? buffers.host_tokens[r] : samplers[size_t(i)].sample(row, history[size_t(i)]);
      out[size_t(i)].push_back(token);
      history[size_t(i)].push_back(token);
      next[size_t(i)] = token;
      bool go = !on_token || on_token(i, token, row);
      if (std::find(options.stop_ids.begin(), options.stop_ids.end(), token) != options.stop_ids.end()) go = false;
      if (int(out[size_t(i)].size()) >= options.max_tokens) go = false;
      if (history[size_t(i)].size() >= size_t(context)) go = false;  // the sequence fills the context
      if (go) still.push_back(i);
    }
    live = std::move(still);
    if (live.empty()) break;
    step.clear();
    for (int i : live) step.push_back({i, std::span<const int>(&next[size_t(i)], 1)});
    forward(model, cache, buffers, step, result);
  }
  return out;
}

std::string StopStringMatcher::put(const std::string& text) {
  if (stopped_) return {};
  held_ += text;
  // A complete stop string: emit what precedes the earliest one and stop.
  size_t first = std::string::npos;
  for (const auto& s : stops_)
    if (!s.empty()) first = std::min(first, held_.find(s));
  if (first != std::string::npos) {
    stopped_ = true;
    std::string out = held_.substr(0, first);
    held_.clear();
    return out;
  }
  // Hold back the longest tail that is a proper prefix of some stop string.
  size_t keep = 0;
  for (const auto& s : stops_)
    for (size_t len = std::min(s.size() - (s.empty() ? 0 : 1), held_.size()); len > keep; --len)
      if (held_.compare(held_.size() - len, len, s, 0, len) == 0) {
        keep = len;
        break;
      }
  std::string out = held_.substr(0, held_.size() - keep);
  held_.erase(0, held_.size() - keep);
  return out;
}

std::string StopStringMatcher::flush() {
  std::string out = stopped_ ? std::string() : held_;
  held_.clear();
  return out;
}

}  // namespace tessera::engine
