// Test cases of the rope family, instantiated for the host (tests/ops) and the GPU (tests/gpu).
#pragma once
#include <gtest/gtest.h>

#include <cmath>

#include "common/test_util.h"
#include "tessera/ops/rope.h"

namespace tessera::testing {

using ops::RopeLayout;
using ops::rope_inv_freq;

struct RopeCase {
  int64_t tokens, heads, head_dim, rotary;  // rotary 0: head_dim
};
// One token, prime token and head counts, more heads than one block takes, head_dim 64/80/128/256, partial
// rotary (32 of 128, 64 of 80, 64 of 256); 131 x 33 and 67 x 40 take the 32-head blocks of many tokens, the
// last two (64 heads or more) the 64-head blocks (the others, few tokens, 8-head blocks).
inline const RopeCase kRopeCases[] = {{1, 1, 64, 0},   {7, 5, 128, 0},  {13, 3, 80, 64},   {3, 2, 256, 0},
                                      {5, 7, 128, 32}, {2, 17, 64, 0},  {11, 9, 256, 64},  {3, 32, 128, 0},
                                      {131, 33, 128, 0}, {67, 40, 80, 64}, {130, 67, 128, 0}, {70, 64, 256, 64}};
inline const RopeLayout kRopeLayouts[] = {RopeLayout::neox, RopeLayout::interleaved};
inline const DType kPositionDTypes[] = {DType::i32, DType::i64};

// The kernels compute angles in fp32: an angle a carries up to ~6e-8 a of error, so each output element up to
// about 1.2e-7 a (|x| <= 1); the reference is exact in double.
inline Tolerance rope_tolerance(DType dt, double max_angle) {
  Tolerance tol = tolerance_for(dt);
  tol.abs += 2.5e-7 * max_angle;
  return tol;
}

enum class RopeMode { separate, in_place, strided, strided_in_place };

inline std::string rope_trace(DType dt, const RopeCase& c, RopeLayout layout, DType pdt, RopeMode mode, int64_t max_pos) {
  return std::string(dtype_name(dt)) + " tokens " + std::to_string(c.tokens) + " heads " + std::to_string(c.heads) +
         " head_dim " + std::to_string(c.head_dim) + " rotary " + std::to_string(c.rotary) +
         (layout == RopeLayout::neox ? " neox" : " interleaved") + " positions " + std::string(dtype_name(pdt)) + " mode " +
         std::to_string(int(mode)) + " max_pos " + std::to_string(max_pos);
}

// Runs rope on `backend` and compares with the reference. In the strided modes x is the middle third (the "k"
// heads) of a fused [tokens, 3 heads, head_dim] buffer, whose other thirds must stay untouched.
inline void check_rope(Device dev, dispatch::Backend backend, DType dt, const RopeCase& c, RopeLayout layout, DType pdt,
                       RopeMode mode = RopeMode::separate, int64_t max_pos = 512, bool random_freq = false) {
  SCOPED_TRACE(rope_trace(dt, c, layout, pdt, mode, max_pos));
  const Shape s{c.tokens, c.heads, c.head_dim};
  const int64_t rotary = c.rotary ? c.rotary : c.head_dim;
  const bool strided = mode == RopeMode::strided || mode == RopeMode::strided_in_place;
  const bool in_place = mode == RopeMode::in_place || mode == RopeMode::strided_in_place;

  Tensor buffer, x;
  if (strided) {
    buffer = random_tensor({c.tokens, 3 * c.heads, c.head_dim}, dt, dev);
    x = Tensor::view(static_cast<char*>(buffer.data()) + c.heads * c.head_dim * dtype_size(dt), s, dt, dev,
                     {3 * c.heads * c.head_dim, c.head_dim, 1});
  } else {
    x = random_tensor(s, dt, dev);
  }
  const auto buffer_before = strided ? floats(buffer) : std::vector<float>{};
  Tensor pos = random_ints({c.tokens}, pdt, 0, max_pos, dev);
  std::vector<float> freq = rope_inv_freq(rotary, 10000.0);
  double max_freq = 1;
  if (random_freq) {
    std::uniform_real_distribution<float> dist(0.f, 2.f);
    for (auto& f : freq) f = dist(rng());
    max_freq = 2;
  }
  Tensor inv_freq = from_floats(freq, {rotary / 2}, DType::f32, dev);

  Tensor y_ref = poisoned(s, dt, dev);
  ops::rope(x, pos, inv_freq, y_ref, layout, c.rotary, {dispatch::Backend::reference});
  Tensor y = in_place ? x : poisoned(s, dt, dev);
  ops::rope(x, pos, inv_freq, y, layout, c.rotary, {backend});
  EXPECT_TRUE(all_close(y, y_ref, rope_tolerance(dt, double(max_pos) * max_freq)));

  if (strided) {  // the q and v thirds of the buffer (and the k third unless written in place) are unchanged
    const auto after = floats(buffer);
    const int64_t d = c.head_dim;
    int64_t changed = 0;
    for (int64_t t = 0; t < c.tokens; ++t)
      for (int64_t h = 0; h < 3 * c.heads; ++h) {
        if (in_place && h >= c.heads && h < 2 * c.heads) continue;
        for (int64_t i = 0; i < d; ++i) {
          const size_t k = size_t((t * 3 * c.heads + h) * d + i);
          if (std::memcmp(&after[k], &buffer_before[k], sizeof(float)) != 0) ++changed;
        }
      }
    EXPECT_EQ(changed, 0) << "elements of the fused buffer outside y were modified";
  }
}

inline void check_rope_all_cases(Device dev, dispatch::Backend backend) {
  for (DType dt : kFloatDTypes)
    for (const auto& c : kRopeCases)
      for (RopeLayout layout : kRopeLayouts)
        for (DType pdt : kPositionDTypes) check_rope(dev, backend, dt, c, layout, pdt);
}

inline void check_rope_views(Device dev, dispatch::Backend backend) {
  const RopeCase cases[] = {{1, 1, 64, 0}, {7, 5, 128, 0}, {13, 3, 80, 64}, {5, 7, 128, 32}, {3, 11, 256, 0}};
  for (DType dt : kFloatDTypes)
    for (const auto& c : cases)
      for (RopeLayout layout : kRopeLayouts)
        for (RopeMode mode : {RopeMode::in_place, RopeMode::strided, RopeMode::strided_in_place})
          check_rope(dev, backend, dt, c, layout, DType::i64, mode);
}

inline void check_rope_large_positions(Device dev, dispatch::Backend backend) {
  for (DType dt : kFloatDTypes)
    for (RopeLayout layout : kRopeLayouts) {
      check_rope(dev, backend, dt, {17, 4, 128, 0}, layout, DType::i32, RopeMode::separate, 100000);
      check_rope(dev, backend, dt, {5, 3, 80, 64}, layout, DType::i64, RopeMode::strided, 131072);
      check_rope(dev, backend, dt, {9, 2, 256, 0}, layout, DType::i64, RopeMode::separate, 2048, /*random_freq=*/true);
    }
}

inline void check_rope_bad_input(Device dev, dispatch::Backend backend) {
  const DType f32 = DType::f32;
  Tensor x = random_tensor({4, 3, 64}, f32, dev), y = poisoned({4, 3, 64}, f32, dev);
  Tensor pos = random_ints({4}, DType::i32, 0, 100, dev);
  Tensor freq = from_floats(rope_inv_freq(64, 10000), {32}, f32, dev);
  const ops::Options o{backend};
  const auto nl = RopeLayout::neox;
  expect_invalid_argument([&] { ops::rope(random_tensor({4, 192}, f32, dev), pos, freq, y, nl, 0, o); }, "3 dims");
  expect_invalid_argument([&] { ops::rope(x, pos, freq, poisoned({4, 3, 63}, f32, dev), nl, 0, o); }, "shapes differ");
  expect_invalid_argument([&] { ops::rope(x, pos, freq, poisoned({4, 3, 64}, DType::bf16, dev), nl, 0, o); }, "dtypes differ");
  expect_invalid_argument([&] { ops::rope(x, random_ints({5}, DType::i32, 0, 9, dev), freq, y, nl, 0, o); }, "positions");
  expect_invalid_argument([&] { ops::rope(x, random_tensor({4}, f32, dev), freq, y, nl, 0, o); }, "positions");
  expect_invalid_argument([&] { ops::rope(x, pos, from_floats(rope_inv_freq(32, 1e4), {16}, f32, dev), y, nl, 0, o); }, "inv_freq");
  expect_invalid_argument([&] { ops::rope(x, pos, random_tensor({32}, DType::f16, dev), y, nl, 0, o); }, "inv_freq");
  expect_invalid_argument([&] { ops::rope(x, pos, freq, y, nl, 63, o); }, "rotary_dim");
  expect_invalid_argument([&] { ops::rope(x, pos, freq, y, nl, 66, o); }, "rotary_dim");
  expect_invalid_argument([&] { ops::rope(x, pos, freq, y, RopeLayout(7), 0, o); }, "layout");
  expect_invalid_argument([&] { ops::rope(Tensor::view(nullptr, {4, 3, 64}, f32, dev), pos, freq, y, nl, 0, o); }, "null");
  // A last dim of stride 2 (every other element of a wider buffer).
  Tensor wide = random_tensor({4, 3, 128}, f32, dev);
  expect_invalid_argument([&] { ops::rope(Tensor::view(wide.data(), {4, 3, 64}, f32, dev, {384, 128, 2}), pos, freq, y, nl, 0, o); },
               "stride");
  if (dev.is_cuda()) {
    expect_invalid_argument([&] { ops::rope(x, pos.to(Device::cpu()), freq, y, nl, 0, o); }, "devices differ");
    expect_invalid_argument([&] { ops::rope(x, pos, freq.to(Device::cpu()), y, nl, 0, o); }, "devices differ");
  }
  for (float v : floats(y)) ASSERT_TRUE(std::isnan(v));
}

}  // namespace tessera::testing
