// The attention family on tile-host against the reference, and bad input.
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "ops/attention/decode_splits.h"
#include "ops/attention_cases.h"
#include "ops/qkv_rope_append_cases.h"
#include "ops/rope_kv_cache_append_cases.h"

namespace tessera::testing {
namespace {
const Device kCpu = Device::cpu();
constexpr auto kHost = dispatch::Backend::tile_host;
}  // namespace

TEST(AttentionHost, FmhaMatchesReference) {
  for (DType dt : kFloatDTypes)
    for (const auto& c : kFmhaCases) check_fmha(kCpu, kHost, dt, c);
}
TEST(AttentionHost, FmhaFp8MatchesReference) { check_fmha_fp8_all(kCpu, kHost); }
TEST(AttentionHost, FmhaFp8MatchesFmhaOnTheDequantisedTensors) { check_fmha_fp8_dequantised(kCpu, kHost); }
TEST(AttentionHost, FmhaFp8BadInputIsAnErrorAndWritesNothing) { check_fmha_fp8_bad_input(kCpu, kHost); }
TEST(AttentionHost, FmhaBackwardMatchesReference) {
  for (DType dt : {DType::f16, DType::bf16})
    for (const auto& c : kFmhaBackwardCases) check_fmha_backward(kCpu, kHost, dt, c);
  // What the tile kernels refuse (f32, head dims other than 64 and 128, Dqk != Dv) falls back to the reference.
  check_fmha_backward(kCpu, kHost, DType::f32, kFmhaBackwardCases[1]);
  check_fmha_backward(kCpu, kHost, DType::bf16, {1, 2, 1, 9, 17, 32, 16, {0.f, true, -1, 0.f}});
}
TEST(AttentionHost, EveryBackwardConfigurationMatchesReference) { check_fmha_backward_configs(kCpu, kHost); }
TEST(AttentionHost, FmhaBackwardBadInputIsAnErrorAndWritesNothing) { check_fmha_backward_bad_input(kCpu, kHost); }
TEST(AttentionHost, FmhaVarlenMatchesReference) {
  for (DType dt : kFloatDTypes)
    for (const auto& c : kVarlenCases) check_fmha_varlen(kCpu, kHost, dt, c);
}
TEST(AttentionHost, FmhaDecodeMatchesReference) {
  for (DType dt : kFloatDTypes)
    for (const auto& c : kDecodeCases) check_fmha_decode(kCpu, kHost, dt, c);
}
TEST(AttentionHost, MlaDecodeMatchesReference) {
  for (DType dt : kFloatDTypes)
    for (const auto& c : kMlaCases) check_mla_decode(kCpu, kHost, dt, c);
}
TEST(AttentionHost, EveryStagedConfigurationMatchesReference) { check_fmha_staged_configs(kCpu, kHost, false); }
TEST(AttentionHost, EveryStagedDecodeConfigurationMatchesReference) { check_fmha_decode_staged_configs(kCpu, kHost, false); }
TEST(AttentionHost, DecodeRightAfterTheAppendSeesTheNewestTokens) {
  check_fmha_decode_after_append_configs(kCpu, kHost, 100, 1, false);
}
TEST(AttentionHost, KvCacheAppendMatchesReference) { check_kv_cache_append_all(kCpu, kHost); }
TEST(AttentionHost, RopeKvCacheAppendMatchesRopeThenAppend) { check_rope_kv_cache_append_all(kCpu, kHost); }
TEST(AttentionHost, RopeKvCacheAppendBadInputWritesNothing) { check_rope_kv_cache_append_bad_input(kCpu, kHost); }
TEST(AttentionHost, QkvRopeKvCacheAppendMatchesTheTwoOps) { check_qkv_rope_kv_cache_append_configs(kCpu, kHost); }
TEST(AttentionHost, QkvRopeKvCacheAppendBadInputWritesNothing) { check_qkv_rope_kv_cache_append_bad_input(kCpu, kHost); }
TEST(AttentionHost, BadInputIsAnErrorAndWritesNothing) { check_attention_bad_input(kCpu, kHost); }
// The key splits of a decode launch: whole waves of blocks, every key covered once, splits of at least the
// minimum length.
TEST(DecodeSplits, FewestWavesAndEveryKeyOnce) {
  using ops::tile_host::split_keys;
  // 64 (sequence, KV head) blocks of 128 key tiles on 264 slots: 4 splits (256 blocks in one wave), not 5 (320
  // blocks, a second wave of 56).
  auto s = split_keys(8192, 64, 64, 264, 4);
  EXPECT_EQ(s.splits, 4);
  EXPECT_EQ(s.tokens_per_split, 2048);
  // One sequence of 32k keys and 8 KV heads fills one wave.
  s = split_keys(32768, 64, 8, 264, 4);
  EXPECT_LE(8 * s.splits, 264);
  EXPECT_GE(8 * s.splits, 200);
  // Two waves of whole sequences are better than splitting them.
  EXPECT_EQ(split_keys(8192, 64, 512, 264, 4).splits, 1);
  for (int64_t capacity : {1, 15, 64, 65, 255, 256, 1000, 4095, 100000})
    for (int64_t blocks : {1, 7, 64, 300})
      for (int64_t min_tiles : {1, 4}) {
        s = split_keys(capacity, 64, blocks, 132, min_tiles);
        const int64_t tiles = (capacity + 63) / 64;
        EXPECT_EQ(s.tokens_per_split % 64, 0);
        EXPECT_GE(s.splits * s.tokens_per_split, capacity) << capacity << " " << blocks;
        EXPECT_LT((s.splits - 1) * s.tokens_per_split, capacity) << capacity << " " << blocks;
        if (s.splits > 1) {
          EXPECT_GE(s.tokens_per_split / 64, std::min(min_tiles, tiles)) << capacity << " " << blocks;
        }
      }
}

// On the device each split takes its share of the sequence's own length: whole tiles, in order, every key
// once, and a sequence much shorter than the cache still spread over the splits.
TEST(DecodeSplits, SplitsShareTheSequenceLength) {
  using ops::kernels::split_key_range;
  for (int64_t len : {0, 1, 63, 64, 65, 300, 2047, 2080, 4096, 100001})
    for (int64_t splits : {1, 2, 7, 16, 33, 264}) {
      int64_t next = 0, longest = 0;
      for (int64_t s = 0; s < splits; ++s) {
        const auto [begin, end] = split_key_range(s, splits, len, 64);
        EXPECT_EQ(begin % 64, 0) << len << " " << splits << " " << s;
        if (end <= begin) continue;  // an empty split: past the end of a short sequence
        EXPECT_EQ(begin, next) << len << " " << splits << " " << s;
        next = end;
        longest = std::max(longest, (end - begin + 63) / 64);
      }
      EXPECT_EQ(next, len) << len << " " << splits;
      const int64_t tiles = (len + 63) / 64;
      EXPECT_EQ(longest, (tiles + splits - 1) / splits) << len << " " << splits;  // the longest split: an even share
    }
}

TEST(AttentionReference, BadInputIsAnErrorAndWritesNothing) { check_attention_bad_input(kCpu, dispatch::Backend::reference); }
TEST(AttentionReference, FmhaFp8MatchesFmhaOnTheDequantisedTensors) {
  check_fmha_fp8_dequantised(kCpu, dispatch::Backend::reference);
}
TEST(AttentionReference, FmhaFp8BadInputIsAnErrorAndWritesNothing) {
  check_fmha_fp8_bad_input(kCpu, dispatch::Backend::reference);
}
// qkv_heads: element (t, h, d) of q, k and v is qkv's element (t, h D + d), (t, (Hq + h) D + d) and
// (t, (Hq + Hkv + h) D + d), for rows wider than the features (a column window).
TEST(AttentionHost, QkvHeadsAreTheColumnBlocksOfTheRows) {
  const int64_t T = 3, Hq = 4, Hkv = 2, D = 8, N = (Hq + 2 * Hkv) * D, width = N + 5;
  const Tensor buffer = random_tensor({T, width}, DType::f32);
  const Tensor qkv = Tensor::view(buffer.data(), {T, N}, DType::f32, Device::cpu(), {width, 1});
  const auto [q, k, v] = ops::qkv_heads(qkv, Hq, Hkv, D);
  EXPECT_EQ(q.shape(), (Shape{T, Hq, D}));
  EXPECT_EQ(k.shape(), (Shape{T, Hkv, D}));
  EXPECT_EQ(v.shape(), (Shape{T, Hkv, D}));
  const std::vector<float> all = floats(qkv), qs = floats(q), ks = floats(k), vs = floats(v);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t d = 0; d < D; ++d) {
      for (int64_t h = 0; h < Hq; ++h) EXPECT_EQ(qs[size_t((t * Hq + h) * D + d)], all[size_t(t * N + h * D + d)]);
      for (int64_t h = 0; h < Hkv; ++h) {
        EXPECT_EQ(ks[size_t((t * Hkv + h) * D + d)], all[size_t(t * N + (Hq + h) * D + d)]);
        EXPECT_EQ(vs[size_t((t * Hkv + h) * D + d)], all[size_t(t * N + (Hq + Hkv + h) * D + d)]);
      }
    }
}
}  // namespace tessera::testing
