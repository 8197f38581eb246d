// The autotuner on the GPU: tuning the matmul times every configuration, picks one of them, remembers it on
// disk, and the results stay correct (also for an in-place residual call, tuned on a scratch output).
#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "dispatch/autotune_fixture.h"
#include "ops/matmul_cases.h"

namespace tessera::testing {
namespace {

namespace at = dispatch::autotune;

class AutotuneGpu : public AutotuneTest {
 protected:
  void SetUp() override {
    TESSERA_REQUIRE_HOPPER_KERNELS();  // the candidate lists below are the Hopper kernels'
    AutotuneTest::SetUp();
  }
};

// Staged configurations (Hopper, rows the copy engine can read), then the generic kernel's.
const char* const kConfigs[] = {"staged_bm128_bn256", "staged_bm128_bn128", "staged_bm64_bn128",
                                "staged_pingpong_bm128_bn128", "bm64_bn64_bk32", "bm128_bn64_bk32", "bm32_bn128_bk32"};
// Staged configurations offered last, for every M (after the swap-AB, few-rows and clustered ones).
const char* const kLast[] = {"staged_bm128_bn64"};
// Clusters of two blocks sharing B tiles, offered past 64 rows (keys without "_swapab").
const char* const kClustered[] = {"staged_pingpong_bm128_bn128_c2", "staged_bm64_bn64_c2", "staged_bm128_bn256_c2"};
// The swap-AB configurations join the staged ones for M <= 64 (keys ending "_swapab"), and the few-rows ones
// join either space for M <= 4 (keys with "_rows"); both are forced in test_matmul_gpu.
const char* const kSwapAB[] = {"swapab_bw128_bk64", "swapab_bw64_bk128", "swapab_bw128_bk64_reduce",
                                "swapab_bw64_bk128_wave", "swapab_bw64_bk128_streamk"};
const char* const kOneRow[] = {"rows1_bn4_x2", "rows1_bn2_x4", "rows1_bn4_x2_chunked"};  // offered for M = 1
const char* const kFewRows[] = {"rows1_bn4_x2", "rows1_bn2_x4", "rows1_bn4_x2_chunked", "rows4_bn1_x2"};
bool known_choice(const std::string& name) {
  auto in = [&](const auto& list) { return std::find(std::begin(list), std::end(list), name) != std::end(list); };
  return in(kConfigs) || in(kSwapAB) || in(kFewRows) || in(kClustered) || in(kLast);
}

TEST_F(AutotuneGpu, EveryMatmulConfigurationMatchesTheReference) {
  std::vector<const char*> names(std::begin(kConfigs), std::end(kConfigs));
  names.insert(names.end(), std::begin(kClustered), std::end(kClustered));
  names.insert(names.end(), std::begin(kLast), std::end(kLast));
  for (const char* name : names) {
    SCOPED_TRACE(name);
    const bool staged = std::string(name).rfind("staged", 0) == 0;
    const bool clustered = std::string(name).ends_with("_c2");  // a candidate past 64 rows only
    at::force("matmul", name);
    for (DType dt : {DType::f16, DType::bf16})
      for (const auto& s : kMatmulShapes)
        if ((s.a.back() % 8 == 0) == staged && (!clustered || s.rows() > 64))
          check_matmul(Device::cuda(), dispatch::Backend::tile_cuda, dt, dt, s, ops::BLayout::nk,
                       ops::Activation::none, false, false, false);
    check_matmul(Device::cuda(), dispatch::Backend::tile_cuda, DType::bf16, DType::bf16, {{130, staged ? 72 : 70}, 200},
                 ops::BLayout::nk, ops::Activation::silu, true, true, false);
    // fp32 out (the copy engine's stores in 32-bit boxes), with edges in M, N and K.
    if (staged)
      check_matmul(Device::cuda(), dispatch::Backend::tile_cuda, DType::bf16, DType::f32, {{257, 136}, 520},
                   ops::BLayout::nk, ops::Activation::none, true, false, false);
    // More tiles than multiprocessors: persistent blocks take several tiles (ping-pong consumers alternate).
    check_matmul(Device::cuda(), dispatch::Backend::tile_cuda, DType::bf16, DType::bf16, {{2048, staged ? 256 : 250}, 2304},
                 ops::BLayout::nk, ops::Activation::none, true, false, false);
  }
}

TEST_F(AutotuneGpu, TuningPicksAValidCandidateAndStaysCorrect) {
  // A fresh cache: the first call of each shape class is tuned with the real GPU timer.
  for (const auto& s : {MatmulShape{{256, 512}, 384}, MatmulShape{{5, 1024}, 1000}, MatmulShape{{1, 300}, 257}})
    check_matmul(Device::cuda(), dispatch::Backend::tile_cuda, DType::bf16, DType::bf16, s, ops::BLayout::nk,
                 ops::Activation::none, false, false, false);
  const auto tuned = at::memory_entries();
  ASSERT_EQ(tuned.size(), 3u);
  // M = 256: the staged space. M = 5: with the swap-AB configurations. M = 1 and K = 300 (rows the copy engine
  // cannot read): the generic kernel's space, tuned under its own key, with the few-rows configurations.
  struct Space {
    const char* m;
    const char* dtype;
    size_t candidates;
  };
  const Space spaces[] = {{"|m256_", "|matmul|bf16_nk|", 4 + std::size(kClustered) + std::size(kLast)},
                          {"|m8_", "|matmul|bf16_nk_swapab|", 4 + std::size(kSwapAB) + std::size(kLast)},
                          {"|m1_", "|matmul|bf16_nk_swapab_rows_generic|", 3 + std::size(kOneRow)}};
  for (const auto& [key, e] : tuned) {
    SCOPED_TRACE(key);
    const Space* space = nullptr;
    for (const Space& s : spaces)
      if (key.find(s.m) != std::string::npos) space = &s;
    ASSERT_NE(space, nullptr);
    EXPECT_NE(key.find(space->dtype), std::string::npos);
    EXPECT_TRUE(known_choice(e.choice)) << e.choice;
    EXPECT_EQ(e.timings.size(), space->candidates);
    for (const auto& [name, us] : e.timings) EXPECT_GT(us, 0.0) << name;
    EXPECT_DOUBLE_EQ(e.us, e.timings.at(e.choice));
  }
  EXPECT_EQ(at::read_cache_file(at::cache_file()).size(), 3u);
  // A second run of a tuned shape reads the choice and is still right.
  check_matmul(Device::cuda(), dispatch::Backend::tile_cuda, DType::bf16, DType::bf16, {{256, 512}, 384},
               ops::BLayout::nk, ops::Activation::none, false, false, false);
}

TEST_F(AutotuneGpu, InPlaceResidualIsTunedOnAScratchOutputAndStaysCorrect) {
  // c = a @ b^T + c: re-running would add the product again, so the candidates are timed writing a scratch
  // output; the caller's c sees one launch, of the chosen configuration. The engine's decode shape (one row,
  // a 32-bit residual stream) and a prefill-like one.
  check_matmul(Device::cuda(), dispatch::Backend::tile_cuda, DType::bf16, DType::f32, {{1, 4096}, 1024},
               ops::BLayout::nk, ops::Activation::none, false, true, true);
  check_matmul(Device::cuda(), dispatch::Backend::tile_cuda, DType::bf16, DType::bf16, {{200, 256}, 320},
               ops::BLayout::nk, ops::Activation::none, false, true, true);
  const auto tuned = at::memory_entries();
  ASSERT_EQ(tuned.size(), 2u);
  for (const auto& [key, e] : tuned) {
    SCOPED_TRACE(key);
    // One row (the swap-AB and few-rows configurations join the staged ones), or 200 rows (staged only).
    const bool one_row = key.find("|m1_") != std::string::npos;
    EXPECT_EQ(e.timings.size(), one_row ? 4 + std::size(kSwapAB) + std::size(kOneRow) + std::size(kLast)
                                        : 4 + std::size(kClustered) + std::size(kLast));
  }
  // Tuned: the same calls again read the choice and are still right.
  check_matmul(Device::cuda(), dispatch::Backend::tile_cuda, DType::bf16, DType::f32, {{1, 4096}, 1024},
               ops::BLayout::nk, ops::Activation::none, false, true, true);
  EXPECT_EQ(at::memory_entries().size(), 2u);
}

TEST_F(AutotuneGpu, DisabledNeverTimes) {
  at::set_enabled(false);
  check_matmul(Device::cuda(), dispatch::Backend::tile_cuda, DType::f16, DType::f16, {{64, 128}, 192},
               ops::BLayout::nk, ops::Activation::none, false, false, false);
  EXPECT_TRUE(at::memory_entries().empty());
  EXPECT_FALSE(std::filesystem::exists(at::cache_file()));
}

TEST_F(AutotuneGpu, DeviceTagNamesTheGpu) {
  const std::string tag = at::device_tag();
  EXPECT_NE(tag, "host");
  EXPECT_NE(tag.find("sm"), std::string::npos) << tag;
}

}  // namespace
}  // namespace tessera::testing
