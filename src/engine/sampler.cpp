// The sampler: logits processors in transformers' order, then a seeded draw.
#include "tessera/engine/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <unordered_set>

#include "tessera/runtime/error.h"

namespace tessera::engine {

void validate(const SamplerConfig& c) {
  auto bad = [](const std::string& what) { invalid_argument("sampler: " + what); };
  if (!(c.temperature >= 0) || !std::isfinite(c.temperature)) bad("temperature must be >= 0, got " + std::to_string(c.temperature));
  if (c.top_k < 0) bad("top_k must be >= 0, got " + std::to_string(c.top_k));
  if (!(c.top_p > 0 && c.top_p <= 1)) bad("top_p must be in (0, 1], got " + std::to_string(c.top_p));
  if (!(c.min_p >= 0 && c.min_p <= 1)) bad("min_p must be in [0, 1], got " + std::to_string(c.min_p));
  if (!(c.repetition_penalty > 0) || !std::isfinite(c.repetition_penalty))
    bad("repetition_penalty must be > 0, got " + std::to_string(c.repetition_penalty));
}

void apply_repetition_penalty(std::span<float> logits, std::span<const int> history, float penalty) {
  if (penalty == 1.0f) return;
  std::unordered_set<int> seen;
  for (int id : history) {
    if (id < 0 || size_t(id) >= logits.size() || !seen.insert(id).second) continue;
    float& l = logits[size_t(id)];
    l = l > 0 ? l / penalty : l * penalty;
  }
}

namespace {
int argmax(std::span<const float> logits) {
  int best = 0;
  for (size_t i = 1; i < logits.size(); ++i)
    if (logits[i] > logits[size_t(best)] || (std::isnan(logits[size_t(best)]) && !std::isnan(logits[i]))) best = int(i);
  return best;
}
}  // namespace

std::vector<Candidate> candidates(std::span<const float> logits, const SamplerConfig& c) {
  check(!logits.empty(), "sampler: empty logits");
  if (c.temperature == 0) return {{argmax(logits), 1.0}};
  // Softmax of logits / temperature, in double; NaN logits never survive.
  std::vector<Candidate> cand;
  cand.reserve(logits.size());
  double top = -INFINITY;
  for (float l : logits)
    if (!std::isnan(l)) top = std::max(top, double(l) / c.temperature);
  check(std::isfinite(top), "sampler: no finite logit to sample from");
  double sum = 0;
  for (size_t i = 0; i < logits.size(); ++i) {
    if (std::isnan(logits[i])) continue;
    const double e = std::exp(double(logits[i]) / c.temperature - top);
    if (e > 0) {
      cand.push_back({int(i), e});
      sum += e;
    }
  }
  for (auto& x : cand) x.prob /= sum;
  // Most likely first; ties by lower id, so the result does not depend on the sort's stability.
  std::sort(cand.begin(), cand.end(), [](const Candidate& a, const Candidate& b) {
    return a.prob != b.prob ? a.prob > b.prob : a.id < b.id;
  });
  if (c.top_k > 0 && size_t(c.top_k) < cand.size()) cand.resize(size_t(c.top_k));
  if (c.top_p < 1) {
    // Keep the smallest prefix whose mass reaches top_p (renormalised after top-k, as transformers does).
    double mass = 0, kept_total = 0;
    for (const auto& x : cand) kept_total += x.prob;
    size_t keep = 0;
    while (keep < cand.size()) {
      mass += cand[keep].prob / kept_total;
      ++keep;
      if (mass >= c.top_p) break;
    }
    cand.resize(std::max<size_t>(keep, 1));
  }
  if (c.min_p > 0) {
    const double threshold = c.min_p * cand.front().prob;
    size_t keep = 0;
    while (keep < cand.size() && cand[keep].prob >= threshold) ++keep;
    cand.resize(std::max<size_t>(keep, 1));
  }
  double kept = 0;
  for (const auto& x : cand) kept += x.prob;
  for (auto& x : cand) x.prob /= kept;
  return cand;
}

Sampler::Sampler(const SamplerConfig& config) : config_(config), rng_(config.seed) { validate(config); }

int Sampler::sample(std::span<const float> logits, std::span<const int> history) {
  scratch_.assign(logits.begin(), logits.end());
  apply_repetition_penalty(scratch_, history, config_.repetition_penalty);
  const std::vector<Candidate> cand = candidates(scratch_, config_);
  if (cand.size() == 1) return cand.front().id;
  // One uniform draw per token, inverted through the cumulative distribution: the same seed and logits give
  // the same tokens on every platform (no std::discrete_distribution, whose algorithm is unspecified).
  const double u = double(rng_() >> 11) * 0x1.0p-53;
  double acc = 0;
  for (const auto& x : cand) {
    acc += x.prob;
    if (u < acc) return x.id;
  }
  return cand.back().id;
}

}  // namespace tessera::engine
