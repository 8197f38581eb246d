// Test cases of the softmax family, instantiated for the host (tests/ops) and the GPU (tests/gpu).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/test_util.h"
#include "tessera/ops/softmax.h"

namespace tessera::testing {

inline const Shape kSoftmaxShapes[] = {{1, 1}, {7}, {3, 7}, {2, 3, 64}, {5, 1000}, {9, 1024}, {3, 1025},
                                       {2, 8192}, {2, 8193}, {1, 20011}, {2, 3, 9001}, {0, 4}};

inline void check_softmax(Device dev, dispatch::Backend backend, DType dt, const Shape& shape, float scale, float lo = -8,
                          float hi = 8) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + shape_str(shape) + " scale " + std::to_string(scale) + " values [" +
               std::to_string(lo) + ", " + std::to_string(hi) + ")");
  Tensor x = random_tensor(shape, dt, dev, lo, hi);
  Tensor y = poisoned(shape, dt, dev), y_ref = poisoned(shape, dt, dev);
  ops::softmax(x, y, scale, {backend});
  ops::softmax(x, y_ref, scale, {dispatch::Backend::reference});
  EXPECT_TRUE(all_close(y, y_ref, tolerance_for(dt)));
  // In place: y is x.
  ops::softmax(x, x, scale, {backend});
  EXPECT_TRUE(all_equal(x, y));
}

// Rows that are not contiguous with each other.
inline void check_softmax_strided(Device dev, dispatch::Backend backend, DType dt, int64_t rows, int64_t n) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + " strided [" + std::to_string(rows) + ", " + std::to_string(n) + "]");
  Tensor xs = random_tensor({rows, n + 3}, dt, dev, -4, 4), ys = poisoned({rows, n + 5}, dt, dev);
  Tensor x = Tensor::view(xs.data(), {rows, n}, dt, dev, {n + 3, 1});
  Tensor y = Tensor::view(ys.data(), {rows, n}, dt, dev, {n + 5, 1});
  Tensor y_ref = poisoned({rows, n}, dt, dev);
  ops::softmax(x, y, 0.7f, {backend});
  ops::softmax(x, y_ref, 0.7f, {dispatch::Backend::reference});
  EXPECT_TRUE(all_close(y, y_ref, tolerance_for(dt)));
  const auto all = floats(ys);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = n; c < n + 5; ++c) ASSERT_TRUE(std::isnan(all[r * (n + 5) + c])) << r << ", " << c;
}

// Rows with -inf entries: all -inf (zeros, not NaN), -inf over the first column tile(s) only (the online
// max starts from -inf), scattered -inf, and a rising row (the running sum is rescaled at every tile).
inline void check_softmax_neg_inf(Device dev, dispatch::Backend backend, DType dt, int64_t n) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + " -inf rows, n " + std::to_string(n));
  const float inf = std::numeric_limits<float>::infinity();
  const int64_t rows = 5;
  auto v = floats(random_tensor({rows, n}, DType::f32, Device::cpu(), -5, 5));
  for (int64_t c = 0; c < n; ++c) v[c] = -inf;                                      // row 0: all -inf
  for (int64_t c = 0; c < n * 3 / 4; ++c) v[n + c] = -inf;                         // row 1: a -inf prefix
  for (int64_t c = 0; c < n; c += 3) v[2 * n + c] = -inf;                          // row 2: scattered
  v[3 * n + n - 1] = -inf;                                                          // row 3: the last entry
  for (int64_t c = 0; c < n; ++c) v[4 * n + c] += 12.f * float(c) / float(n);      // row 4: the max grows per tile
  Tensor x = from_floats(v, {rows, n}, dt, dev);
  Tensor y = poisoned({rows, n}, dt, dev), y_ref = poisoned({rows, n}, dt, dev);
  ops::softmax(x, y, 0.5f, {backend});
  ops::softmax(x, y_ref, 0.5f, {dispatch::Backend::reference});
  EXPECT_TRUE(all_close(y, y_ref, tolerance_for(dt)));
  const auto got = floats(y);
  for (int64_t c = 0; c < n; ++c) ASSERT_EQ(got[c], 0.f) << c;
  for (int64_t i = 0; i < rows * n; ++i) ASSERT_FALSE(std::isnan(got[i])) << i;
}

inline void check_softmax_bad_input(Device dev, dispatch::Backend backend) {
  const ops::Options o{backend};
  Tensor x = random_tensor({4, 16}, DType::f32, dev);
  Tensor y = poisoned({4, 16}, DType::f32, dev);
  expect_invalid_argument([&] { ops::softmax(x, poisoned({4, 15}, DType::f32, dev), 1.f, o); }, "shapes differ");
  expect_invalid_argument([&] { ops::softmax(x, poisoned({4, 16}, DType::f16, dev), 1.f, o); }, "dtype");
  expect_invalid_argument([&] { ops::softmax(Tensor::view(nullptr, {4, 16}, DType::f32, dev), y, 1.f, o); }, "null");
  expect_invalid_argument([&] { ops::softmax(x, Tensor::view(nullptr, {4, 16}, DType::f32, dev), 1.f, o); }, "null");
  expect_invalid_argument([&] { ops::softmax(x, y, std::numeric_limits<float>::infinity(), o); }, "scale");
  expect_invalid_argument([&] { ops::softmax(x, y, std::nanf(""), o); }, "scale");
  expect_invalid_argument([&] { ops::softmax(random_tensor({4, 0}, DType::f32, dev), y, 1.f, o); }, "y");
  if (dev.is_cuda()) expect_invalid_argument([&] { ops::softmax(x, y.to(Device::cpu()), 1.f, o); }, "devices differ");
  for (float v : floats(y)) ASSERT_TRUE(std::isnan(v));
}

#define TESSERA_SOFTMAX_TESTS(Fixture, DEVICE, BACKEND)                                                    \
  TEST_F(Fixture, SoftmaxMatchesReference) {                                                               \
    for (DType dt : kFloatDTypes)                                                                          \
      for (const auto& s : kSoftmaxShapes)                                                                 \
        for (float scale : {1.f, 0.125f, -0.7f}) check_softmax(DEVICE, BACKEND, dt, s, scale);             \
  }                                                                                                        \
  TEST_F(Fixture, SoftmaxLargeValues) {                                                                    \
    for (DType dt : kFloatDTypes)                                                                          \
      for (const auto& s : {Shape{3, 1000}, Shape{2, 20011}}) {                                            \
        check_softmax(DEVICE, BACKEND, dt, s, 1.f, 1e4f - 20, 1e4f + 20);                                  \
        check_softmax(DEVICE, BACKEND, dt, s, 0.3f, -1e4f, 1e4f);                                          \
        check_softmax(DEVICE, BACKEND, dt, s, 0.088f, 9e3f, 1.1e4f);                                       \
      }                                                                                                    \
  }                                                                                                        \
  TEST_F(Fixture, SoftmaxNegInfRows) {                                                                     \
    for (DType dt : kFloatDTypes)                                                                          \
      for (int64_t n : {1, 37, 1024, 1500, 20011}) check_softmax_neg_inf(DEVICE, BACKEND, dt, n);         \
  }                                                                                                        \
  TEST_F(Fixture, SoftmaxStridedRows) {                                                                    \
    for (DType dt : kFloatDTypes)                                                                          \
      for (int64_t n : {5, 1000, 9000}) check_softmax_strided(DEVICE, BACKEND, dt, 6, n);                  \
  }                                                                                                        \
  TEST_F(Fixture, SoftmaxBadInputIsAnErrorAndWritesNothing) { check_softmax_bad_input(DEVICE, BACKEND); }

}  // namespace tessera::testing
