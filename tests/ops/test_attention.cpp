// The attention family on tile-host against the reference, and bad input.
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "ops/attention_cases.h"

namespace tessera::testing {
namespace {
const Device kCpu = Device::cpu();
constexpr auto kHost = dispatch::Backend::tile_host;
}  // namespace

TEST(AttentionHost, FmhaMatchesReference) {
  for (DType dt : kFloatDTypes)
    for (const auto& c : kFmhaCases) check_fmha(kCpu, kHost, dt, c);
}
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
TEST(AttentionHost, KvCacheAppendMatchesReference) { check_kv_cache_append_all(kCpu, kHost); }
TEST(AttentionHost, BadInputIsAnErrorAndWritesNothing) { check_attention_bad_input(kCpu, kHost); }
TEST(AttentionReference, BadInputIsAnErrorAndWritesNothing) { check_attention_bad_input(kCpu, dispatch::Backend::reference); }
}  // namespace tessera::testing
