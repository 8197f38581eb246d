// Running the engine in tests: prefill then decode one sequence, logits rows, and a row comparison.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <vector>

#include <algorithm>

#include "tessera/engine/forward.h"
#include "tessera/engine/generate.h"
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

namespace tessera::testing {

// Greedy generation of a batch of prompts, tokens chosen on the host from copied logits (a callback that takes
// the rows) and on the device (logits_to_callback off): the same ids, and the device run's callback gets no rows.
inline void expect_device_greedy_equals_host_greedy(const engine::Model& m, const std::vector<std::vector<int>>& prompts,
                                                    bool cuda_graphs = false) {
  engine::GenerateOptions opt;
  opt.max_tokens = 7;
  opt.sampler.temperature = 0;
  opt.cuda_graphs = cuda_graphs;
  size_t rows_seen = 0;
  const auto host = engine::generate(m, prompts, opt, [&](int, int token, std::span<const float> logits) {
    EXPECT_EQ(logits.size(), size_t(m.config.vocab_size));
    EXPECT_EQ(token, int(std::max_element(logits.begin(), logits.end()) - logits.begin()));
    ++rows_seen;
    return true;
  });
  EXPECT_EQ(rows_seen, prompts.size() * 7);
  opt.logits_to_callback = false;
  size_t tokens_seen = 0;
  const auto device = engine::generate(m, prompts, opt, [&](int, int, std::span<const float> logits) {
    EXPECT_TRUE(logits.empty());
    ++tokens_seen;
    return true;
  });
  EXPECT_EQ(tokens_seen, prompts.size() * 7);
  EXPECT_EQ(device, host);
}

}  // namespace tessera::testing
