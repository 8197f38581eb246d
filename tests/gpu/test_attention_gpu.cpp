// The attention family on tile-cuda against the reference: the host cases plus long sequences (2047), a
// realistic decode batch and contexts long enough for many key splits.
#include "common/test_util.h"
#include "ops/attention_cases.h"
#include "ops/qkv_rope_append_cases.h"
#include "ops/rope_kv_cache_append_cases.h"
#include "tessera/runtime/cuda_graph.h"

namespace tessera::testing {
namespace {
constexpr auto kCuda = dispatch::Backend::tile_cuda;

const FmhaCase kLongFmhaCases[] = {
    {1, 2, 1, 2047, 2047, 128, 128, {0.f, true, -1, 0.f}},
    {1, 2, 2, 2047, 2047, 64, 64, {}},
    {1, 4, 1, 300, 2047, 128, 128, {0.f, true, 256, 0.f}},
    {2, 8, 8, 511, 511, 256, 256, {0.f, true, -1, 30.f}},
    {1, 4, 2, 777, 777, 192, 128, {0.f, true, -1, 0.f}},
    // The staged (Hopper) kernel: several query and key tiles, edges inside tiles, GQA, Sq < Sk, softcap.
    {2, 8, 2, 1000, 1500, 128, 128, {0.f, true, -1, 0.f}},
    {1, 4, 4, 4095, 4095, 64, 64, {0.f, false, -1, 0.f}},
    {1, 8, 1, 129, 1031, 128, 128, {0.f, false, 300, 0.f}},
    {1, 2, 2, 257, 257, 64, 64, {0.2f, true, -1, 20.f}},
    // Keys wider than values (MLA prefill, 192 / 128) on the staged kernel: GQA with Sq < Sk, a window.
    {2, 8, 2, 1000, 1500, 192, 128, {0.f, true, -1, 0.f}},
    {1, 4, 4, 129, 1031, 192, 128, {0.f, false, 300, 0.f}},
};

// The backward kernels over many tiles of both: long causal, GQA 4 with Sq < Sk, a window, softcap with a scale.
const FmhaCase kLongFmhaBackwardCases[] = {
    {1, 4, 1, 1000, 1500, 128, 128, {0.f, true, -1, 0.f}},
    {1, 2, 2, 2047, 2047, 64, 64, {}},
    {1, 4, 1, 129, 1031, 128, 128, {0.f, false, 300, 0.f}},
    {1, 2, 2, 257, 257, 64, 64, {0.2f, true, -1, 20.f}},
};

// Packed sequences long enough for several 128-key tiles each, one empty, padding rows at the end.
const VarlenCase kLongVarlenCases[] = {
    {{700, 129, 0, 300}, {700, 300, 5, 300}, 8, 2, 128, 128, {0.f, true, -1, 0.f}, 3},
    {{1000, 1}, {2000, 2047}, 4, 4, 64, 64, {}},
    {{700, 129, 0, 300}, {700, 300, 5, 300}, 8, 2, 192, 128, {0.f, true, -1, 0.f}, 3},
};

const DecodeCase kLongDecodeCases[] = {
    {{4000, 1, 0, 2500}, 1, 32, 8, 128, 128, 16, true, {}},
    {{4097}, 4, 8, 1, 128, 128, 16, true, {}},
    {{3000, 17}, 1, 8, 8, 64, 64, 37, true, {0.f, true, 1000, 0.f}},
};
}  // namespace

class AttentionGpu : public ::testing::Test {
 protected:
  void SetUp() override { TESSERA_REQUIRE_GPU(); }
};

TEST_F(AttentionGpu, FmhaMatchesReference) {
  for (DType dt : kFloatDTypes)
    for (const auto& c : kFmhaCases) check_fmha(Device::cuda(), kCuda, dt, c);
}
TEST_F(AttentionGpu, FmhaLongSequencesMatchReference) {
  for (DType dt : {DType::bf16, DType::f16})
    for (const auto& c : kLongFmhaCases) check_fmha(Device::cuda(), kCuda, dt, c);
  check_fmha(Device::cuda(), kCuda, DType::f32, kLongFmhaCases[0]);
}
TEST_F(AttentionGpu, FmhaFp8MatchesReference) { check_fmha_fp8_all(Device::cuda(), kCuda); }
TEST_F(AttentionGpu, FmhaFp8MatchesFmhaOnTheDequantisedTensors) { check_fmha_fp8_dequantised(Device::cuda(), kCuda); }
TEST_F(AttentionGpu, FmhaFp8BadInputIsAnErrorAndWritesNothing) { check_fmha_fp8_bad_input(Device::cuda(), kCuda); }
TEST_F(AttentionGpu, FmhaBackwardMatchesReference) {
  for (DType dt : {DType::f16, DType::bf16})
    for (const auto& c : kFmhaBackwardCases) check_fmha_backward(Device::cuda(), kCuda, dt, c);
  for (const auto& c : kLongFmhaBackwardCases) check_fmha_backward(Device::cuda(), kCuda, DType::bf16, c);
}
TEST_F(AttentionGpu, EveryBackwardConfigurationMatchesReference) { check_fmha_backward_configs(Device::cuda(), kCuda); }
TEST_F(AttentionGpu, FmhaBackwardBadInputIsAnErrorAndWritesNothing) { check_fmha_backward_bad_input(Device::cuda(), kCuda); }
TEST_F(AttentionGpu, FmhaVarlenMatchesReference) {
  for (DType dt : kFloatDTypes)
    for (const auto& c : kVarlenCases) check_fmha_varlen(Device::cuda(), kCuda, dt, c);
  for (DType dt : {DType::bf16, DType::f16})
    for (const auto& c : kLongVarlenCases) check_fmha_varlen(Device::cuda(), kCuda, dt, c);
}
TEST_F(AttentionGpu, EveryStagedConfigurationMatchesReference) { check_fmha_staged_configs(Device::cuda(), kCuda, true); }
TEST_F(AttentionGpu, EveryStagedDecodeConfigurationMatchesReference) { check_fmha_decode_staged_configs(Device::cuda(), kCuda, true); }
TEST_F(AttentionGpu, FmhaDecodeMatchesReference) {
  for (DType dt : kFloatDTypes)
    for (const auto& c : kDecodeCases) check_fmha_decode(Device::cuda(), kCuda, dt, c);
  for (DType dt : {DType::bf16, DType::f32})
    for (const auto& c : kLongDecodeCases) check_fmha_decode(Device::cuda(), kCuda, dt, c);
}
// A decode captured into a CUDA graph on a stream that has run none before: its split scratch, kept per
// stream, is allocated inside the capture (it used to fail there with a bare CUDA error). Two replays, each
// into a poisoned output, match the reference.
TEST_F(AttentionGpu, DecodeCapturedOnANewStreamAllocatesItsScratchInTheCapture) {
  const DecodeCase c{{3000, 700}, 1, 32, 8, 128, 128, 16, true, {}};  // several key splits a sequence
  const DType dt = DType::bf16;
  const DecodeCache cpu = make_decode_cache(c, dt);
  const Device gpu = Device::cuda();
  const ops::KvCache cache{on_device(cpu.k_pages, gpu), on_device(cpu.v_pages, gpu), on_device(cpu.block_table, gpu)};
  const Tensor seq_lens = on_device(cpu.seq_lens, gpu);
  const Tensor q = random_tensor({2, c.Sq, c.Hq, c.Dk}, dt, gpu, -2, 2);
  const Tensor o_ref = poisoned({2, c.Sq, c.Hq, c.Dv}, dt, gpu), o = poisoned({2, c.Sq, c.Hq, c.Dv}, dt, gpu);
  ops::fmha_decode(q, cache, seq_lens, o_ref, c.params, {dispatch::Backend::reference});
  const Stream stream(gpu);
  CudaGraph graph;
  graph.begin_capture(stream.handle());
  try {
    ops::fmha_decode(q, cache, seq_lens, o, c.params, {kCuda, stream.handle()});
  } catch (...) {
    graph.abandon_capture();
    throw;
  }
  graph.end_capture();
  for (int replay = 0; replay < 2; ++replay) {
    const Tensor poison = poisoned(o.shape(), dt, gpu);
    copy_bytes(o.data(), gpu, poison.data(), gpu, o.nbytes());
    graph.launch(stream.handle());
    stream.synchronize();
    EXPECT_TRUE(all_close(o, o_ref, attention_tolerance(dt))) << "replay " << replay;
  }
}

// With older_tokens_settled the producers start before the append ends (programmatic dependent launch).
TEST_F(AttentionGpu, DecodeRightAfterTheAppendSeesTheNewestTokens) {
  check_fmha_decode_after_append_configs(Device::cuda(), kCuda, 4096, 4, true);
}

TEST_F(AttentionGpu, MlaDecodeMatchesReference) {
  for (DType dt : kFloatDTypes)
    for (const auto& c : kMlaCases) check_mla_decode(Device::cuda(), kCuda, dt, c);
  check_mla_decode(Device::cuda(), kCuda, DType::bf16, {{4096, 1000, 1}, 1, 128, 64});
  check_mla_decode(Device::cuda(), kCuda, DType::bf16, {{8192, 3000}, 2, 128, 16});
  check_mla_decode(Device::cuda(), kCuda, DType::f16, {{20000}, 1, 128, 64});
}
TEST_F(AttentionGpu, KvCacheAppendMatchesReference) { check_kv_cache_append_all(Device::cuda(), kCuda); }
TEST_F(AttentionGpu, RopeKvCacheAppendMatchesRopeThenAppend) { check_rope_kv_cache_append_all(Device::cuda(), kCuda); }
TEST_F(AttentionGpu, RopeKvCacheAppendBadInputWritesNothing) { check_rope_kv_cache_append_bad_input(Device::cuda(), kCuda); }
TEST_F(AttentionGpu, QkvRopeKvCacheAppendMatchesTheTwoOps) { check_qkv_rope_kv_cache_append_configs(Device::cuda(), kCuda); }
TEST_F(AttentionGpu, QkvRopeKvCacheAppendBadInputWritesNothing) { check_qkv_rope_kv_cache_append_bad_input(Device::cuda(), kCuda); }
TEST_F(AttentionGpu, BadInputIsAnErrorAndWritesNothing) { check_attention_bad_input(Device::cuda(), kCuda); }

}  // namespace tessera::testing
