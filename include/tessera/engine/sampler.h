// Choosing the next token from a row of logits on the host: repetition penalty, then temperature, then the
// top-k, top-p and min-p filters (the order transformers applies them), then a draw from a seeded generator.
// Temperature 0 is greedy (argmax, the lowest id on ties).
#pragma once
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace tessera::engine {

struct SamplerConfig {
  float temperature = 1.0f;         // 0: greedy
  int top_k = 0;                    // keep the k most likely tokens; 0: off
  float top_p = 1.0f;               // keep the smallest set whose probability reaches p; 1: off
  float min_p = 0.0f;               // keep tokens with probability >= min_p * the top probability; 0: off
  float repetition_penalty = 1.0f;  // logits of tokens seen before: divided by it when positive, else multiplied
  uint64_t seed = 0;
};

// Checks the ranges (temperature >= 0, top_k >= 0, 0 < top_p <= 1, 0 <= min_p <= 1, repetition_penalty > 0);
// throws invalid_argument naming the setting.
void validate(const SamplerConfig& config);

// Applies the repetition penalty in place to the logits of every id in `history` (each id once).
void apply_repetition_penalty(std::span<float> logits, std::span<const int> history, float penalty);

// The tokens that survive temperature, top-k, top-p and min-p, most likely first, with their probabilities
// (renormalised over the survivors).
struct Candidate {
  int id;
  double prob;
};
std::vector<Candidate> candidates(std::span<const float> logits, const SamplerConfig& config);

class Sampler {
 public:
  explicit Sampler(const SamplerConfig& config);
  // The next token for `logits` (vocab values) given the tokens so far (prompt and generated) in `history`.
  int sample(std::span<const float> logits, std::span<const int> history);
  const SamplerConfig& config() const { return config_; }

 private:
  SamplerConfig config_;
  std::mt19937_64 rng_;
  std::vector<float> scratch_;
};

}  // namespace tessera::engine
