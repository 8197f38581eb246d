// The autotuner on the GPU: tuning the matmul times every configuration, picks one of them, remembers it on
// disk, and the results stay correct (also for an in-place residual call, tuned on a scratch output).
#include <algorithm>
#include <iterator>
#include <string>

#include "common/test_util.h"
#include "dispatch/autotune_fixture.h"
#include "ops/matmul_cases.h"

namespace tessera::testing {
namespace {

namespace at = dispatch::autotune;

class AutotuneGpu : public AutotuneTest {
 protected:
  void SetUp() override {
    TESSERA_REQUIRE_GPU();
    AutotuneTest::SetUp();
  }
};

// Staged configurations (Hopper, rows the copy engine can read), then the generic kernel's.
const char* const kConfigs[] = {"staged_bm128_bn256", "staged_bm128_bn128", "staged_bm64_bn128",
                                "staged_pingpong_bm128_bn128", "bm64_bn64_bk32", "bm128_bn64_bk32", "bm32_bn128_bk32"};
bool is_staged(const std::string& name) { return name.rfind("staged", 0) == 0 || name.rfind("swapab", 0) == 0; }
// The swap-AB configurations join the staged ones for M <= 64 (keys ending "_swapab"); forced in test_matmul_gpu.
const char* const kSwapAB[] = {"swapab_bw128_bk64", "swapab_bw64_bk128", "swapab_bw128_bk64_reduce",
                                "swapab_bw64_bk128_wave"};
size_t candidates_like(const std::string& name, bool skinny) {
  const size_t n = size_t(std::count_if(std::begin(kConfigs), std::end(kConfigs), [&](const char* c) { return is_staged(c) == is_staged(name); }));
  return is_staged(name) && skinny ? n + std::size(kSwapAB) : n;
}

TEST_F(AutotuneGpu, EveryMatmulConfigurationMatchesTheReference) {
  for (const char* name : kConfigs) {
    SCOPED_TRACE(name);
    const bool staged = std::string(name).rfind("staged", 0) == 0;
    at::force("matmul", name);
    for (DType dt : {DType::f16, DType::bf16})
      for (const auto& s : kMatmulShapes)
        if ((s.a.back() % 8 == 0) == staged)
          check_matmul(Device::cuda(), dispatch::Backend::tile_cuda, dt, dt, s, ops::BLayout::nk,
                       ops::Activation::none, false, false, false);
    check_matmul(Device::cuda(), dispatch::Backend::tile_cuda, DType::bf16, DType::bf16, {{130, staged ? 72 : 70}, 200},
                 ops::BLayout::nk, ops::Activation::silu, true, true, false);
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
  for (const auto& [key, e] : tuned) {
    SCOPED_TRACE(key);
    // Rows the copy engine cannot read (K = 300) fall back to the generic kernel, tuned under its own key.
    const bool skinny = key.find("|m256_") == std::string::npos;  // M = 5 and 1: the swap-AB space
    const std::string dtype = std::string("|matmul|bf16_nk") + (skinny ? "_swapab" : "") + (is_staged(e.choice) ? "|" : "_generic|");
    EXPECT_NE(key.find(dtype), std::string::npos);
    const bool known = std::find(std::begin(kConfigs), std::end(kConfigs), e.choice) != std::end(kConfigs) ||
                       std::find(std::begin(kSwapAB), std::end(kSwapAB), e.choice) != std::end(kSwapAB);
    EXPECT_TRUE(known) << e.choice;
    EXPECT_EQ(e.timings.size(), candidates_like(e.choice, skinny));
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
    const bool skinny = key.find("_swapab") != std::string::npos;
    EXPECT_EQ(e.timings.size(), candidates_like(e.choice, skinny));
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
