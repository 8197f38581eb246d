// The engine's forward on tiny random models of every architecture: logits against an independent fp64 forward,
// KV-cache decode against full recompute, a batch of prompts of different lengths against each prompt alone,
// the bf16 compute path, random weights, and load errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <unistd.h>

#include "common/test_util.h"
#include "engine/engine_run.h"
#include "engine/tiny_model.h"
#include "tessera/engine/forward.h"
#include "tessera/engine/generate.h"
#include "tessera/engine/model.h"
#include "tessera/runtime/error.h"

namespace tessera::testing {
namespace {
namespace fs = std::filesystem;
using engine::Model;

// A directory for one test's checkpoint, removed when the test ends (also when it fails).
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& tag) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info->name();  // "Test/param" for parameterised tests
    std::replace(name.begin(), name.end(), '/', '_');
    path = fs::temp_directory_path() / ("tessera_model_" + name + "_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::vector<int> random_ids(int n, int vocab) {
  std::uniform_int_distribution<int> d(0, vocab - 1);
  std::vector<int> ids(static_cast<size_t>(n));
  for (auto& x : ids) x = d(rng());
  return ids;
}

class EngineModel : public ::testing::TestWithParam<TinySpec> {};

TEST_P(EngineModel, PrefillAndDecodeMatchTheFp64Reference) {
  const TinySpec spec = GetParam();
  const auto w = tiny_weights(spec, seed());
  const TempDir temp(spec.name);
  const fs::path& dir = temp.path;
  write_tiny_model(dir, spec, w);
  const Model m = engine::load_model(dir.string());
  EXPECT_EQ(m.dtype, DType::f32);
  const std::vector<int> prompt = random_ids(7, spec.vocab), extra = random_ids(5, spec.vocab);
  std::vector<int> all = prompt;
  all.insert(all.end(), extra.begin(), extra.end());
  const auto want = ref::forward(spec, w, all);
  const auto got = run_decode(m, prompt, extra);
  ASSERT_EQ(got.size(), extra.size() + 1);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_TRUE(rows_close(got[i], want[prompt.size() - 1 + i], 2e-4)) << spec.name << " step " << i;
}

TEST_P(EngineModel, DecodeEqualsFullRecompute) {
  const TinySpec spec = GetParam();
  const Model m = engine::random_model(engine::parse_config(tiny_config_json(spec)), {}, seed());
  const std::vector<int> prompt = random_ids(6, spec.vocab), extra = random_ids(6, spec.vocab);
  const auto decoded = run_decode(m, prompt, extra, 3);
  // The same tokens prefilled whole, one prefix at a time.
  for (size_t i = 0; i <= extra.size(); ++i) {
    std::vector<int> prefix = prompt;
    prefix.insert(prefix.end(), extra.begin(), extra.begin() + long(i));
    const auto full = run_decode(m, prefix, {});
    std::vector<double> want(full[0].begin(), full[0].end());
    EXPECT_TRUE(rows_close(decoded[i], want, 1e-5)) << spec.name << " step " << i;
  }
}

TEST_P(EngineModel, BatchOfDifferentLengthsEqualsEachAlone) {
  const TinySpec spec = GetParam();
  const auto w = tiny_weights(spec, seed());
  const TempDir temp(spec.name);
  const fs::path& dir = temp.path;
  write_tiny_model(dir, spec, w);
  const Model m = engine::load_model(dir.string());
  const std::vector<std::vector<int>> prompts = {random_ids(5, spec.vocab), random_ids(1, spec.vocab), random_ids(11, spec.vocab)};
  const std::vector<std::vector<int>> extras = {random_ids(4, spec.vocab), random_ids(4, spec.vocab), random_ids(4, spec.vocab)};
  engine::RunLimits lim;
  lim.max_batch = 4;  // one slot more than used: slots need not be dense
  lim.max_tokens = 32;
  lim.max_seq_len = 20;
  lim.page_size = 2;
  auto cache = engine::make_kv_cache(m, lim);
  auto buf = engine::make_step_buffers(m, lim);
  const int slots[3] = {3, 0, 1};
  std::vector<engine::SequenceTokens> batch;
  for (int i = 0; i < 3; ++i) batch.push_back({slots[i], prompts[size_t(i)]});
  engine::forward(m, cache, buf, batch);
  std::vector<std::vector<std::vector<float>>> got(3);
  for (int i = 0; i < 3; ++i) got[size_t(i)].push_back(row(buf, i, spec.vocab));
  for (size_t step = 0; step < 4; ++step) {
    batch.clear();
    for (int i = 0; i < 3; ++i) batch.push_back({slots[i], std::span<const int>(&extras[size_t(i)][step], 1)});
    engine::forward(m, cache, buf, batch);
    for (int i = 0; i < 3; ++i) got[size_t(i)].push_back(row(buf, i, spec.vocab));
  }
  for (int i = 0; i < 3; ++i) {
    const auto alone = run_decode(m, prompts[size_t(i)], extras[size_t(i)]);
    for (size_t s = 0; s < alone.size(); ++s) {
      std::vector<double> want(alone[s].begin(), alone[s].end());
      EXPECT_TRUE(rows_close(got[size_t(i)][s], want, 1e-5)) << spec.name << " sequence " << i << " step " << s;
    }
  }
  // A finished sequence gives its pages back, and a new one can take its slot.
  engine::reset_sequence(cache, 0);
  EXPECT_EQ(cache.seq_len[0], 0);
  engine::SequenceTokens again{0, prompts[1]};
  engine::forward(m, cache, buf, std::span(&again, 1));
  std::vector<double> want(got[1][0].begin(), got[1][0].end());
  EXPECT_TRUE(rows_close(row(buf, 0, spec.vocab), want, 1e-5));
}

TEST_P(EngineModel, DecodeOfSeveralTokensPerSequenceEqualsOneByOne) {
  const TinySpec spec = GetParam();
  const Model m = engine::random_model(engine::parse_config(tiny_config_json(spec)), {}, seed());
  const std::vector<std::vector<int>> prompts = {random_ids(4, spec.vocab), random_ids(9, spec.vocab)};
  const std::vector<std::vector<int>> chunks = {random_ids(3, spec.vocab), random_ids(3, spec.vocab)};
  engine::RunLimits lim;
  lim.max_batch = 2;
  lim.max_tokens = 13;
  lim.max_seq_len = 12;
  lim.page_size = 4;
  auto cache = engine::make_kv_cache(m, lim);
  auto buf = engine::make_step_buffers(m, lim);
  std::vector<engine::SequenceTokens> batch = {{0, prompts[0]}, {1, prompts[1]}};
  engine::forward(m, cache, buf, batch);
  batch = {{0, chunks[0]}, {1, chunks[1]}};  // a decode step of 3 tokens per sequence
  engine::forward(m, cache, buf, batch);
  for (int i = 0; i < 2; ++i) {
    const auto alone = run_decode(m, prompts[size_t(i)], chunks[size_t(i)]);
    std::vector<double> want(alone.back().begin(), alone.back().end());
    EXPECT_TRUE(rows_close(row(buf, i, spec.vocab), want, 1e-5)) << spec.name << " sequence " << i;
  }
  EXPECT_EQ(cache.seq_len[0], 7);
  EXPECT_EQ(cache.seq_len[1], 12);
}

TEST_P(EngineModel, Bf16ComputeStaysCloseToTheReference) {
  const TinySpec spec = GetParam();
  const auto w = tiny_weights(spec, seed());
  const TempDir temp(spec.name);
  const fs::path& dir = temp.path;
  write_tiny_model(dir, spec, w);
  const Model m = engine::load_model(dir.string(), {Device::cpu(), DType::bf16});
  EXPECT_EQ(m.weights.token_embedding.dtype(), DType::bf16);
  const std::vector<int> prompt = random_ids(6, spec.vocab), extra = random_ids(2, spec.vocab);
  std::vector<int> all = prompt;
  all.insert(all.end(), extra.begin(), extra.end());
  const auto want = ref::forward(spec, w, all);
  const auto got = run_decode(m, prompt, extra);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_TRUE(rows_close(got[i], want[prompt.size() - 1 + i], 0.08)) << spec.name << " step " << i;
}

INSTANTIATE_TEST_SUITE_P(Architectures, EngineModel, ::testing::ValuesIn(tiny_specs()),
                         [](const auto& info) { return info.param.name; });

TEST(EngineModelLoad, RandomWeightsAreDeterministicPerSeed) {
  TinySpec spec = tiny_specs()[0];
  const auto config = engine::parse_config(tiny_config_json(spec));
  const Model a = engine::random_model(config, {}, 7), b = engine::random_model(config, {}, 7), c = engine::random_model(config, {}, 8);
  const std::vector<int> prompt = {3, 1, 4, 1, 5};
  const auto la = run_decode(a, prompt, {}), lb = run_decode(b, prompt, {}), lc = run_decode(c, prompt, {});
  EXPECT_EQ(la[0], lb[0]);
  EXPECT_NE(la[0], lc[0]);
  for (float v : la[0]) ASSERT_TRUE(std::isfinite(v));
}

template <class F>
void expect_error(F f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(EngineModelLoad, ErrorsNameWhatIsWrong) {
  TinySpec spec = tiny_specs()[0];
  const auto w = tiny_weights(spec, seed());
  // A missing tensor is named.
  const TempDir temp("missing");
  const fs::path& dir = temp.path;
  write_tiny_model(dir, spec, w, {"model.layers.1.mlp.up_proj.weight"});
  expect_error([&] { engine::load_model(dir.string()); }, "model.layers.1.mlp.up_proj.weight");
  // A tensor of the wrong shape: its name and both shapes.
  TinySpec wider = spec;
  wider.hidden = 40;
  write_tiny_model(dir, spec, tiny_weights(wider, 1));
  expect_error([&] { engine::load_model(dir.string()); }, "model.embed_tokens.weight");
  // Not a directory; no config; an unknown architecture.
  expect_error([&] { engine::load_model((dir / "nope").string()); }, "not a directory");
  fs::remove(dir / "config.json");
  expect_error([&] { engine::load_model(dir.string()); }, "config.json");
  std::ofstream(dir / "config.json") << R"({"model_type": "mamba", "architectures": ["MambaForCausalLM"]})";
  expect_error([&] { engine::load_model(dir.string()); }, "mamba");
}

TEST(EngineModelLoad, ForwardRejectsBadSteps) {
  const auto config = engine::parse_config(tiny_config_json(tiny_specs()[0]));
  const Model m = engine::random_model(config, {}, 1);
  engine::RunLimits lim;
  lim.max_batch = 2;
  lim.max_tokens = 8;
  lim.max_seq_len = 10;
  auto cache = engine::make_kv_cache(m, lim);
  auto buf = engine::make_step_buffers(m, lim);
  const std::vector<int> bad = {1, 999}, nine(9, 1), ok = {1, 2, 3};
  engine::SequenceTokens s{0, bad};
  expect_error([&] { engine::forward(m, cache, buf, std::span(&s, 1)); }, "token id 999");
  EXPECT_EQ(cache.seq_len[0], 0);  // nothing was taken
  s = {0, nine};
  expect_error([&] { engine::forward(m, cache, buf, std::span(&s, 1)); }, "max_tokens");
  s = {5, ok};
  expect_error([&] { engine::forward(m, cache, buf, std::span(&s, 1)); }, "slot 5");
  s = {0, ok};
  engine::forward(m, cache, buf, std::span(&s, 1));
  // A second prefill chunk of more than 8 tokens on a non-empty sequence is not a supported step.
  const std::vector<int> many(8, 2);
  s = {0, many};
  expect_error([&] { engine::forward(m, cache, buf, std::span(&s, 1)); }, "would hold");
}

TEST(EngineGenerate, GreedyGenerationFollowsTheLogits) {
  const auto config = engine::parse_config(tiny_config_json(tiny_specs()[2]));
  const Model m = engine::random_model(config, {}, 3);
  engine::GenerateOptions opt;
  opt.max_tokens = 6;
  opt.sampler.temperature = 0;
  std::vector<std::vector<float>> rows;
  const auto out = engine::generate(m, {{5, 6, 7}}, opt, [&](int, int token, std::span<const float> logits) {
    rows.emplace_back(logits.begin(), logits.end());
    EXPECT_EQ(token, int(std::max_element(logits.begin(), logits.end()) - logits.begin()));
    return true;
  });
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].size(), 6u);
  EXPECT_EQ(rows.size(), 6u);
  // The same run with the first generated token as a stop id ends after it.
  opt.stop_ids = {out[0][0]};
  EXPECT_EQ(engine::generate(m, {{5, 6, 7}}, opt)[0].size(), 1u);
}

// A sequence ends when its prompt and generated tokens fill the context: the model's max_position_embeddings
// (96 in the tiny specs) or max_context; a prompt that leaves no room, a negative context and, for GPT-2's
// learned positions, a context past them are errors that name the numbers.
TEST(EngineGenerate, SequencesEndAtTheContext) {
  for (const TinySpec& spec : {tiny_specs().front(), tiny_specs().back()}) {
    SCOPED_TRACE(spec.name);
    const auto config = engine::parse_config(tiny_config_json(spec));
    const Model m = engine::random_model(config, {}, 11);
    engine::GenerateOptions opt;
    opt.sampler.temperature = 0;
    opt.max_tokens = 500;
    // The model's own context, two prompts of different lengths in one batch.
    const std::vector<std::vector<int>> prompts = {random_ids(3, spec.vocab), random_ids(40, spec.vocab)};
    auto out = engine::generate(m, prompts, opt);
    EXPECT_EQ(out[0].size(), size_t(spec.max_positions - 3));
    EXPECT_EQ(out[1].size(), size_t(spec.max_positions - 40));
    // A smaller one; max_tokens still ends a sequence first where it is shorter.
    opt.max_context = 11;
    out = engine::generate(m, {prompts[0]}, opt);
    EXPECT_EQ(out[0].size(), 8u);
    opt.max_tokens = 5;
    EXPECT_EQ(engine::generate(m, {prompts[0]}, opt)[0].size(), 5u);
    // One prompt of the batch fills the context.
    expect_error([&] { engine::generate(m, {prompts[0], random_ids(11, spec.vocab)}, opt); }, "prompt 1 has 11 tokens; the context holds 11");
    opt.max_context = -1;
    expect_error([&] { engine::generate(m, {prompts[0]}, opt); }, "max_context must be >= 0");
    opt.max_context = spec.max_positions + 4;
    opt.max_tokens = 500;
    if (spec.name == "gpt2") {
      expect_error([&] { engine::generate(m, {prompts[0]}, opt); }, "past GPT-2's 96 learned positions");
    } else {  // rotary positions go on past the trained ones when asked to
      EXPECT_EQ(engine::generate(m, {prompts[0]}, opt)[0].size(), size_t(spec.max_positions + 1));
    }
  }
}

TEST(EngineGenerate, DeviceGreedyEqualsHostGreedy) {
  for (const TinySpec& spec : tiny_specs()) {
    SCOPED_TRACE(spec.name);
    const Model m = engine::random_model(engine::parse_config(tiny_config_json(spec)), {}, 5);
    expect_device_greedy_equals_host_greedy(m, {random_ids(5, spec.vocab), random_ids(1, spec.vocab), random_ids(9, spec.vocab)});
  }
}

}  // namespace
}  // namespace tessera::testing
