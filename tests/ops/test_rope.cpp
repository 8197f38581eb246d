// rope on tile-host against the reference, rope_inv_freq, bad input.
#include <gtest/gtest.h>

#include <cmath>

#include "common/test_util.h"
#include "ops/rope_cases.h"

namespace tessera::testing {

TEST(RopeHost, MatchesReference) { check_rope_all_cases(Device::cpu(), dispatch::Backend::tile_host); }
TEST(RopeHost, InPlaceAndStridedViews) { check_rope_views(Device::cpu(), dispatch::Backend::tile_host); }
TEST(RopeHost, LargePositionsAndArbitraryFrequencies) { check_rope_large_positions(Device::cpu(), dispatch::Backend::tile_host); }
TEST(RopeHost, BadInputIsAnErrorAndWritesNothing) { check_rope_bad_input(Device::cpu(), dispatch::Backend::tile_host); }

TEST(RopeHost, EmptyInputIsANoOp) {
  Tensor x = Tensor::empty({0, 4, 64}, DType::f32), y = Tensor::empty({0, 4, 64}, DType::f32);
  Tensor pos = Tensor::empty({0}, DType::i32), freq = from_floats(ops::rope_inv_freq(64, 1e4), {32}, DType::f32);
  ops::rope(x, pos, freq, y, RopeLayout::neox, 0, {dispatch::Backend::tile_host});
}

TEST(RopeHost, InvFreqTable) {
  const auto f = ops::rope_inv_freq(128, 500000.0);
  ASSERT_EQ(f.size(), 64u);
  for (size_t i = 0; i < f.size(); ++i) EXPECT_FLOAT_EQ(f[i], float(std::pow(500000.0, -2.0 * double(i) / 128.0)));
  EXPECT_EQ(f[0], 1.f);
  for (auto [d, theta] : {std::pair{0L, 1e4}, std::pair{7L, 1e4}, std::pair{-2L, 1e4}, std::pair{64L, 0.0}, std::pair{64L, double(NAN)}}) {
    try {
      ops::rope_inv_freq(d, theta);
      ADD_FAILURE() << "no error for rotary_dim " << d << " theta " << theta;
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::invalid_argument);
    }
  }
}

// Position 0 is the identity, and a rotation by known angles by hand.
TEST(RopeHost, KnownValues) {
  // One token at position 1, one head of 4 features, inv_freq {pi/2, pi}: neox pairs (0, 2) and (1, 3).
  Tensor x = from_floats({1, 2, 3, 4}, {1, 1, 4}, DType::f32), y = poisoned({1, 1, 4}, DType::f32);
  Tensor pos = Tensor::empty({1}, DType::i64);
  pos.data_as<int64_t>()[0] = 1;
  Tensor freq = from_floats({float(M_PI / 2), float(M_PI)}, {2}, DType::f32);
  ops::rope(x, pos, freq, y, RopeLayout::neox, 0, {dispatch::Backend::tile_host});
  // pair (1, 3) by pi/2: (-3, 1); pair (2, 4) by pi: (-2, -4)
  EXPECT_TRUE(all_close(floats(y), {-3, -2, 1, -4}, {1e-6, 0}));
  ops::rope(x, pos, freq, y, RopeLayout::interleaved, 0, {dispatch::Backend::tile_host});
  // pair (1, 2) by pi/2: (-2, 1); pair (3, 4) by pi: (-3, -4)
  EXPECT_TRUE(all_close(floats(y), {-2, 1, -3, -4}, {1e-6, 0}));
  pos.data_as<int64_t>()[0] = 0;
  ops::rope(x, pos, freq, y, RopeLayout::interleaved, 0, {dispatch::Backend::tile_host});
  EXPECT_TRUE(all_equal(y, x));
}

}  // namespace tessera::testing
