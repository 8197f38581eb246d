// The engine on CUDA: the same tiny models as the host engine tests, run with --device cuda paths (weights on
// the GPU, every op on tile-cuda or its fallback), against the CPU engine (f32) and the fp64 reference (bf16).
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "common/test_util.h"
#include "tessera/runtime/workspace.h"
#include "engine/engine_run.h"
#include "engine/tiny_model.h"
#include "tessera/engine/forward.h"
#include "tessera/engine/model.h"

namespace tessera::testing {
namespace {
namespace fs = std::filesystem;

class EngineGpu : public ::testing::TestWithParam<TinySpec> {
 protected:
  void SetUp() override { TESSERA_REQUIRE_GPU(); }
  fs::path dir() const {
    return fs::temp_directory_path() / ("tessera_engine_gpu_" + GetParam().name + "_" + std::to_string(::getpid()));
  }
};

// The KV cache and step buffers of a short decode run (16 tokens a sequence, 4-token pages), with CUDA graphs
// or without.
struct DecodeRun {
  engine::PagedKvCache cache;
  engine::StepBuffers buf;
};
DecodeRun decode_run(const engine::Model& m, int64_t max_batch, int64_t max_tokens, bool graphs) {
  engine::RunLimits lim;
  lim.max_batch = max_batch;
  lim.max_tokens = max_tokens;
  lim.max_seq_len = 16;
  lim.page_size = 4;
  DecodeRun r{engine::make_kv_cache(m, lim), engine::make_step_buffers(m, lim)};
  if (graphs) engine::enable_cuda_graphs(m, r.buf);
  return r;
}

std::vector<int> ids_for(int n, int vocab, int salt) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back((i * 37 + salt * 11 + 5) % vocab);
  return v;
}

TEST_P(EngineGpu, F32LogitsMatchTheCpuEngine) {
  const TinySpec spec = GetParam();
  write_tiny_model(dir(), spec, tiny_weights(spec, seed()));
  const engine::Model cpu = engine::load_model(dir().string(), {Device::cpu(), DType::f32});
  const engine::Model gpu = engine::load_model(dir().string(), {Device::cuda(), DType::f32});
  EXPECT_TRUE(gpu.weights.token_embedding.device().is_cuda());
  const auto prompt = ids_for(9, spec.vocab, 1), extra = ids_for(5, spec.vocab, 2);
  const auto want = run_decode(cpu, prompt, extra), got = run_decode(gpu, prompt, extra);
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_TRUE(rows_close(got[i], std::vector<double>(want[i].begin(), want[i].end()), 5e-3)) << spec.name << " step " << i;
  fs::remove_all(dir());
}

TEST_P(EngineGpu, DeviceGreedyEqualsHostGreedy) {
  const TinySpec spec = GetParam();
  const engine::Model gpu = engine::random_model(engine::parse_config(tiny_config_json(spec)), {Device::cuda(), std::nullopt}, 7);
  const std::vector<std::vector<int>> prompts = {ids_for(6, spec.vocab, 5), ids_for(2, spec.vocab, 6)};
  expect_device_greedy_equals_host_greedy(gpu, prompts);
  expect_device_greedy_equals_host_greedy(gpu, prompts, /*cuda_graphs=*/true);
}

TEST_P(EngineGpu, Bf16LogitsStayCloseToTheReference) {
  const TinySpec spec = GetParam();
  const auto w = tiny_weights(spec, seed());
  write_tiny_model(dir(), spec, w);
  const engine::Model gpu = engine::load_model(dir().string(), {Device::cuda(), std::nullopt});
  EXPECT_EQ(gpu.dtype, DType::bf16);  // the CUDA default
  const auto prompt = ids_for(7, spec.vocab, 3), extra = ids_for(3, spec.vocab, 4);
  std::vector<int> all = prompt;
  all.insert(all.end(), extra.begin(), extra.end());
  const auto want = ref::forward(spec, w, all);
  const auto got = run_decode(gpu, prompt, extra);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_TRUE(rows_close(got[i], want[prompt.size() - 1 + i], 0.08)) << spec.name << " step " << i;
  fs::remove_all(dir());
}

TEST_P(EngineGpu, BatchOfDifferentLengthsEqualsEachAlone) {
  const TinySpec spec = GetParam();
  write_tiny_model(dir(), spec, tiny_weights(spec, seed()));
  const engine::Model m = engine::load_model(dir().string(), {Device::cuda(), DType::f32});
  const std::vector<std::vector<int>> prompts = {ids_for(5, spec.vocab, 5), ids_for(1, spec.vocab, 6), ids_for(12, spec.vocab, 7)};
  engine::RunLimits lim;
  lim.max_batch = 3;
  lim.max_tokens = 18;
  lim.max_seq_len = 16;
  lim.page_size = 4;
  auto cache = engine::make_kv_cache(m, lim);
  auto buf = engine::make_step_buffers(m, lim);
  std::vector<engine::SequenceTokens> batch;
  for (int i = 0; i < 3; ++i) batch.push_back({i, prompts[size_t(i)]});
  engine::forward(m, cache, buf, batch);
  std::vector<std::vector<float>> first;
  for (int i = 0; i < 3; ++i) first.push_back(row(buf, i, spec.vocab));
  const int next[3] = {3, 4, 5};
  batch.clear();
  for (int i = 0; i < 3; ++i) batch.push_back({i, std::span<const int>(&next[i], 1)});
  engine::forward(m, cache, buf, batch);
  for (int i = 0; i < 3; ++i) {
    const auto alone = run_decode(m, prompts[size_t(i)], {next[i]});
    EXPECT_TRUE(rows_close(first[size_t(i)], std::vector<double>(alone[0].begin(), alone[0].end()), 1e-3)) << i;
    EXPECT_TRUE(rows_close(row(buf, i, spec.vocab), std::vector<double>(alone[1].begin(), alone[1].end()), 1e-3)) << i;
  }
  fs::remove_all(dir());
}

// The logits of each decode step with CUDA graphs against those of eager launches.
void expect_graph_logits_equal_eager(const std::vector<std::vector<float>>& eager, const std::vector<std::vector<float>>& graphed,
                                     const std::string& model) {
  ASSERT_EQ(eager.size(), graphed.size()) << model;
  for (size_t i = 0; i < eager.size(); ++i)
    EXPECT_TRUE(rows_close(graphed[i], std::vector<double>(eager[i].begin(), eager[i].end()), 1e-6)) << model << " step " << i;
}

// Decode steps replayed as CUDA graphs give the same logits as eager launches (the same kernels on the same
// inputs): the first decode step runs eagerly, the second is captured, the rest replay the graph.
TEST_P(EngineGpu, CudaGraphDecodeEqualsEager) {
  const TinySpec spec = GetParam();
  write_tiny_model(dir(), spec, tiny_weights(spec, seed()));
  const engine::Model m = engine::load_model(dir().string(), {Device::cuda(), std::nullopt});
  const std::vector<std::vector<int>> prompts = {ids_for(6, spec.vocab, 8), ids_for(3, spec.vocab, 9)};
  auto run = [&](bool graphs) {
    auto [cache, buf] = decode_run(m, 2, 9, graphs);
    std::vector<engine::SequenceTokens> batch = {{0, prompts[0]}, {1, prompts[1]}};
    engine::forward(m, cache, buf, batch);
    std::vector<std::vector<float>> rows;
    int next[2];
    for (int step = 0; step < 5; ++step) {
      next[0] = (step * 7 + 1) % spec.vocab;
      next[1] = (step * 5 + 2) % spec.vocab;
      batch = {{0, std::span<const int>(&next[0], 1)}, {1, std::span<const int>(&next[1], 1)}};
      engine::forward(m, cache, buf, batch);
      rows.emplace_back(buf.host_logits.begin(), buf.host_logits.end());
    }
    if (graphs) {
      EXPECT_TRUE(buf.use_cuda_graphs) << "the capture failed; see the warning above";
      EXPECT_TRUE(buf.decode_graphs[2].graph && buf.decode_graphs[2].graph->ready());
    }
    return rows;
  };
  expect_graph_logits_equal_eager(run(false), run(true), spec.name);
  fs::remove_all(dir());
}

// A captured decode step holds the ops' workspace pointers; a workspace that grows afterwards frees its old
// memory. The engine then captures the step again, and the logits stay those of eager launches.
TEST_P(EngineGpu, CudaGraphIsCapturedAgainAfterAWorkspaceGrows) {
  const TinySpec spec = GetParam();
  write_tiny_model(dir(), spec, tiny_weights(spec, seed()));
  const engine::Model m = engine::load_model(dir().string(), {Device::cuda(), std::nullopt});
  const std::vector<int> prompt = ids_for(5, spec.vocab, 3);
  static size_t grow_to = 1 << 20;
  auto run = [&](bool graphs) {
    auto [cache, buf] = decode_run(m, 1, 8, graphs);
    std::vector<engine::SequenceTokens> batch = {{0, prompt}};
    engine::forward(m, cache, buf, batch);
    std::vector<std::vector<float>> rows;
    int next = 0;
    for (int step = 0; step < 6; ++step) {
      if (graphs && step == 3) {
        EXPECT_TRUE(buf.decode_graphs[1].graph && buf.decode_graphs[1].graph->ready());
        const uint64_t before = workspace_generation();
        workspace("test.engine.grown", grow_to, Device::cuda(), nullptr);
        grow_to *= 2;
        workspace("test.engine.grown", grow_to, Device::cuda(), nullptr);  // a replacement
        EXPECT_GT(workspace_generation(), before);
      }
      next = (step * 3 + 1) % spec.vocab;
      batch = {{0, std::span<const int>(&next, 1)}};
      engine::forward(m, cache, buf, batch);
      rows.emplace_back(buf.host_logits.begin(), buf.host_logits.end());
      // The step after the growth runs eagerly (the old graph dropped), the next one is captured again.
      if (graphs && step == 3) {
        EXPECT_FALSE(buf.decode_graphs[1].graph) << "the old graph was replayed";
      }
    }
    if (graphs) {
      EXPECT_TRUE(buf.use_cuda_graphs);
      EXPECT_TRUE(buf.decode_graphs[1].graph && buf.decode_graphs[1].graph->ready());
    }
    return rows;
  };
  expect_graph_logits_equal_eager(run(false), run(true), spec.name);
  fs::remove_all(dir());
}

INSTANTIATE_TEST_SUITE_P(Architectures, EngineGpu, ::testing::ValuesIn(tiny_specs()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace tessera::testing
