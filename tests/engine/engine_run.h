// Running the engine in tests: prefill then decode one sequence, logits rows, and a row comparison.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <vector>

#include "tessera/engine/forward.h"
#include "tessera/engine/model.h"

namespace tessera::testing {

// |got - want| <= atol + rtol * max|want| over a row.
inline ::testing::AssertionResult rows_close(std::span<const float> got, const std::vector<double>& want, double rtol) {
  double scale = 0, worst = 0;
  size_t at = 0;
  for (double w : want) scale = std::max(scale, std::fabs(w));
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (size_t i = 0; i < want.size(); ++i) {
    const double d = std::fabs(double(got[i]) - want[i]);
    if (!(d <= worst)) { worst = d; at = i; }
  }
  if (worst <= rtol * (1 + scale)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "max error " << worst << " at " << at << " (got " << got[at] << ", want " << want[at]
                                       << "), allowed " << rtol * (1 + scale);
}

inline std::vector<float> row(const engine::StepBuffers& b, int r, int vocab) {
  return {b.host_logits.begin() + r * vocab, b.host_logits.begin() + (r + 1) * vocab};
}

// Prefills `prompt` then decodes `extra` one token at a time; returns the logits after every step
// (row 0 after the prompt, then one per decoded token).
inline std::vector<std::vector<float>> run_decode(const engine::Model& m, const std::vector<int>& prompt, const std::vector<int>& extra, int page_size = 4) {
  engine::RunLimits lim;
  lim.max_batch = 1;
  lim.max_tokens = int(prompt.size());
  lim.max_seq_len = int(prompt.size() + extra.size());
  lim.page_size = page_size;
  auto cache = engine::make_kv_cache(m, lim);
  auto buf = engine::make_step_buffers(m, lim);
  std::vector<std::vector<float>> out;
  engine::SequenceTokens seq{0, prompt};
  engine::forward(m, cache, buf, std::span(&seq, 1));
  out.push_back(row(buf, 0, m.config.vocab_size));
  for (size_t i = 0; i < extra.size(); ++i) {
    engine::SequenceTokens step{0, std::span<const int>(&extra[i], 1)};
    engine::forward(m, cache, buf, std::span(&step, 1));
    out.push_back(row(buf, 0, m.config.vocab_size));
  }
  return out;
}

}  // namespace tessera::testing
