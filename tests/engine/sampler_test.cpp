// The sampler's filters keep the right sets, greedy is argmax, seeds are deterministic, the repetition penalty
// moves the right logits; and the stop-string matcher for streamed text.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "common/test_util.h"
#include "tessera/engine/generate.h"
#include "tessera/engine/sampler.h"
#include "tessera/runtime/error.h"

namespace tessera::testing {
namespace {
using engine::SamplerConfig;

std::vector<float> random_logits(int n) {
  std::normal_distribution<float> d(0, 2);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = d(rng());
  return v;
}

std::vector<double> softmax(const std::vector<float>& l, double t = 1) {
  double top = *std::max_element(l.begin(), l.end()), sum = 0;
  std::vector<double> p(l.size());
  for (size_t i = 0; i < l.size(); ++i) sum += (p[i] = std::exp((l[i] - top) / t));
  for (auto& x : p) x /= sum;
  return p;
}

// Token ids sorted by probability, most likely first (ties by id).
std::vector<int> by_prob(const std::vector<double>& p) {
  std::vector<int> ids(p.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = int(i);
  std::sort(ids.begin(), ids.end(), [&](int a, int b) { return p[size_t(a)] != p[size_t(b)] ? p[size_t(a)] > p[size_t(b)] : a < b; });
  return ids;
}

std::set<int> ids_of(const std::vector<engine::Candidate>& c) {
  std::set<int> s;
  for (auto& x : c) s.insert(x.id);
  return s;
}

TEST(Sampler, GreedyIsArgmax) {
  for (int trial = 0; trial < 20; ++trial) {
    const auto l = random_logits(97);
    SamplerConfig c;
    c.temperature = 0;
    engine::Sampler s(c);
    EXPECT_EQ(s.sample(l, {}), int(std::max_element(l.begin(), l.end()) - l.begin()));
  }
}

TEST(Sampler, TopKKeepsTheKMostLikely) {
  const auto l = random_logits(50);
  const auto order = by_prob(softmax(l));
  for (int k : {1, 2, 7, 50, 80}) {
    SamplerConfig c;
    c.top_k = k;
    const auto cand = engine::candidates(l, c);
    ASSERT_EQ(cand.size(), size_t(std::min(k, 50)));
    EXPECT_EQ(ids_of(cand), std::set<int>(order.begin(), order.begin() + long(cand.size())));
    double sum = 0;
    for (auto& x : cand) sum += x.prob;
    EXPECT_NEAR(sum, 1.0, 1e-12);
  }
}

TEST(Sampler, TopPKeepsTheSmallestSetReachingP) {
  const auto l = random_logits(40);
  const auto p = softmax(l, 0.7);
  const auto order = by_prob(p);
  for (float top_p : {0.05f, 0.3f, 0.5f, 0.9f, 0.999f}) {
    SamplerConfig c;
    c.temperature = 0.7f;
    c.top_p = top_p;
    const auto kept = ids_of(engine::candidates(l, c));
    // Expected: the shortest prefix of the sorted ids whose mass is >= top_p.
    double mass = 0;
    size_t n = 0;
    while (n < order.size() && mass < top_p) mass += p[size_t(order[n++])];
    EXPECT_EQ(kept, std::set<int>(order.begin(), order.begin() + long(n))) << top_p;
  }
}

TEST(Sampler, MinPKeepsTokensAboveAFractionOfTheTop) {
  const auto l = random_logits(60);
  const auto p = softmax(l);
  const double top = *std::max_element(p.begin(), p.end());
  for (float min_p : {0.01f, 0.1f, 0.5f, 1.0f}) {
    SamplerConfig c;
    c.min_p = min_p;
    std::set<int> want;
    for (size_t i = 0; i < p.size(); ++i)
      if (p[i] >= min_p * top * (1 - 1e-12)) want.insert(int(i));
    EXPECT_EQ(ids_of(engine::candidates(l, c)), want) << min_p;
  }
}

TEST(Sampler, SameSeedSameTokensOtherSeedOtherTokens) {
  const auto l = random_logits(200);
  SamplerConfig c;
  c.temperature = 1.5f;
  c.seed = 1234;
  auto draw = [&](uint64_t seed) {
    SamplerConfig cc = c;
    cc.seed = seed;
    engine::Sampler s(cc);
    std::vector<int> out;
    for (int i = 0; i < 50; ++i) out.push_back(s.sample(l, {}));
    return out;
  };
  EXPECT_EQ(draw(1234), draw(1234));
  EXPECT_NE(draw(1234), draw(1235));
}

TEST(Sampler, DrawsFollowTheDistribution) {
  // p = (0.5, 0.25, 0.125, 0.125): 20000 draws land within a few standard deviations.
  const std::vector<float> l = {std::log(4.f), std::log(2.f), 0.f, 0.f};
  SamplerConfig c;
  c.seed = seed();
  engine::Sampler s(c);
  std::vector<int> count(4);
  const int n = 20000;
  for (int i = 0; i < n; ++i) ++count[size_t(s.sample(l, {}))];
  const double want[4] = {0.5, 0.25, 0.125, 0.125};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(count[size_t(i)] / double(n), want[i], 0.015) << i;
}

TEST(Sampler, RepetitionPenaltyDividesPositiveAndMultipliesNegativeLogitsOnce) {
  std::vector<float> l = {2.f, -2.f, 3.f, 1.f};
  const std::vector<int> history = {0, 1, 1, 0, 7};  // repeats count once; an out-of-range id is ignored
  engine::apply_repetition_penalty(l, history, 2.f);
  EXPECT_EQ(l, (std::vector<float>{1.f, -4.f, 3.f, 1.f}));
  // Through the sampler: greedy would pick 0 (logit 3.5) but the penalty sends it below id 1.
  SamplerConfig c;
  c.temperature = 0;
  c.repetition_penalty = 1.5f;
  engine::Sampler s(c);
  const std::vector<float> l2 = {3.5f, 3.f, -1.f};
  EXPECT_EQ(s.sample(l2, std::vector<int>{}), 0);
  EXPECT_EQ(s.sample(l2, std::vector<int>{0}), 1);
}

TEST(Sampler, BadSettingsAreNamed) {
  auto expect_bad = [](SamplerConfig c, const char* needle) {
    try {
      engine::validate(c);
      ADD_FAILURE() << needle;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  SamplerConfig c;
  c.temperature = -1;
  expect_bad(c, "temperature");
  c = {};
  c.top_p = 0;
  expect_bad(c, "top_p");
  c = {};
  c.min_p = 1.5f;
  expect_bad(c, "min_p");
  c = {};
  c.top_k = -3;
  expect_bad(c, "top_k");
  c = {};
  c.repetition_penalty = 0;
  expect_bad(c, "repetition_penalty");
}

TEST(StopStrings, HoldsBackPossibleStartsAndCutsAtTheStop) {
  engine::StopStringMatcher m({"</s>", "\n\nUser:"});
  std::string shown;
  shown += m.put("Hello <");
  EXPECT_EQ(shown, "Hello ");  // "<" may start "</s>"
  shown += m.put("b> and\n");
  EXPECT_EQ(shown, "Hello <b> and");
  shown += m.put("\nUs");
  EXPECT_FALSE(m.stopped());
  shown += m.put("er: hi");
  EXPECT_TRUE(m.stopped());
  EXPECT_EQ(shown, "Hello <b> and");
  EXPECT_EQ(m.put("more"), "");
  EXPECT_EQ(m.flush(), "");
  engine::StopStringMatcher n({"END"});
  EXPECT_EQ(n.put("the EN"), "the ");
  EXPECT_EQ(n.flush(), "EN");  // no stop came: what was held is shown at the end
  engine::StopStringMatcher none({});
  EXPECT_EQ(none.put("abc"), "abc");
}

}  // namespace
}  // namespace tessera::testing
