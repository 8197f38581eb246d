// Test cases of the elementwise family, instantiated for the host (tests/ops) and the GPU (tests/gpu).
#pragma once
#include <gtest/gtest.h>

#include <cmath>

#include "common/test_util.h"
#include "tessera/ops/elementwise.h"

namespace tessera::testing {

inline const Shape kElementwiseShapes[] = {{1}, {1, 1}, {3, 7}, {13}, {2, 3, 64}, {5, 1000}, {3, 2049}, {1, 20011}, {0, 5}};

inline void check_add(Device dev, dispatch::Backend backend, DType dt, const Shape& shape) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + shape_str(shape));
  Tensor a = random_tensor(shape, dt, dev, -4, 4), b = random_tensor(shape, dt, dev, -4, 4);
  Tensor y = poisoned(shape, dt, dev), y_ref = poisoned(shape, dt, dev);
  ops::add(a, b, y, {backend});
  ops::add(a, b, y_ref, {dispatch::Backend::reference});
  // One rounding of an fp32 sum: both sides round the same value, so they agree exactly.
  EXPECT_TRUE(all_equal(y, y_ref));
  // In place: y is a.
  ops::add(a, b, a, {backend});
  EXPECT_TRUE(all_equal(a, y));
}

// Rows lying apart in a larger buffer: the launcher cannot flatten them; the gaps stay unwritten.
inline void check_add_strided(Device dev, dispatch::Backend backend, DType dt, int64_t rows, int64_t n) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + " strided [" + std::to_string(rows) + ", " + std::to_string(n) + "]");
  Tensor as = random_tensor({rows, n + 3}, dt, dev, -4, 4), ys = poisoned({rows, n + 5}, dt, dev);
  Tensor a = Tensor::view(as.data(), {rows, n}, dt, dev, {n + 3, 1});
  Tensor y = Tensor::view(ys.data(), {rows, n}, dt, dev, {n + 5, 1});
  Tensor b = random_tensor({rows, n}, dt, dev, -4, 4), y_ref = poisoned({rows, n}, dt, dev);
  ops::add(a, b, y, {backend});
  ops::add(a, b, y_ref, {dispatch::Backend::reference});
  const auto all = floats(ys), want = floats(y_ref);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < n + 5; ++c) {
      if (c < n) ASSERT_EQ(all[r * (n + 5) + c], want[r * n + c]) << r << ", " << c;
      else ASSERT_TRUE(std::isnan(all[r * (n + 5) + c])) << r << ", " << c;
    }
}

inline void check_cast(Device dev, dispatch::Backend backend, DType from, DType to, const Shape& shape) {
  SCOPED_TRACE(std::string(dtype_name(from)) + " -> " + std::string(dtype_name(to)) + shape_str(shape));
  // Wide range, so f32 -> f16 meets overflow to inf and subnormals.
  Tensor x = random_tensor(shape, from, dev, -70000, 70000);
  Tensor small = random_tensor(shape, from, dev, -1e-6f, 1e-6f);
  for (const Tensor& in : {x, small}) {
    Tensor y = poisoned(shape, to, dev), y_ref = poisoned(shape, to, dev);
    ops::cast(in, y, {backend});
    ops::cast(in, y_ref, {dispatch::Backend::reference});
    EXPECT_TRUE(all_equal(y, y_ref));
  }
}

inline void check_transpose(Device dev, dispatch::Backend backend, DType dt, int64_t rows, int64_t cols) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + " [" + std::to_string(rows) + ", " + std::to_string(cols) + "]");
  Tensor x = random_tensor({rows, cols}, dt, dev, -4, 4);
  Tensor y = poisoned({cols, rows}, dt, dev), y_ref = poisoned({cols, rows}, dt, dev);
  ops::transpose(x, y, {backend});
  ops::transpose(x, y_ref, {dispatch::Backend::reference});
  EXPECT_TRUE(all_equal(y, y_ref));
  // Independently of the reference: y[c, r] == x[r, c].
  const auto xv = floats(x), yv = floats(y);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) ASSERT_EQ(yv[size_t(c * rows + r)], xv[size_t(r * cols + c)]) << r << ", " << c;
}

inline void check_elementwise_bad_input(Device dev, dispatch::Backend backend) {
  const ops::Options o{backend};
  Tensor a = random_tensor({4, 16}, DType::f32, dev), b = random_tensor({4, 16}, DType::f32, dev);
  Tensor y = poisoned({4, 16}, DType::f32, dev), h = poisoned({4, 16}, DType::bf16, dev);
  expect_invalid_argument([&] { ops::add(a, random_tensor({4, 15}, DType::f32, dev), y, o); }, "shapes differ");
  expect_invalid_argument([&] { ops::add(a, b, poisoned({4, 16}, DType::f16, dev), o); }, "dtype");
  expect_invalid_argument([&] { ops::add(random_ints({4, 16}, DType::i32, 0, 5, dev), b, y, o); }, "dtype must be");
  expect_invalid_argument([&] { ops::add(Tensor::view(nullptr, {4, 16}, DType::f32, dev), b, y, o); }, "null");
  expect_invalid_argument([&] { ops::cast(a, poisoned({4, 15}, DType::bf16, dev), o); }, "shapes differ");
  expect_invalid_argument([&] { ops::cast(random_ints({4, 16}, DType::i32, 0, 5, dev), h, o); }, "dtype must be");
  expect_invalid_argument([&] { ops::cast(a, Tensor::view(nullptr, {4, 16}, DType::bf16, dev), o); }, "null");
  expect_invalid_argument([&] { ops::cast(a, Tensor::view(a.data(), {4, 16}, DType::bf16, dev), o); }, "in place");
  expect_invalid_argument([&] { ops::transpose(a, poisoned({4, 16}, DType::f32, dev), o); }, "expected shape");
  expect_invalid_argument([&] { ops::transpose(a, poisoned({16, 4}, DType::bf16, dev), o); }, "dtype");
  expect_invalid_argument([&] { ops::transpose(random_tensor({2, 4, 4}, DType::f32, dev), poisoned({4, 8}, DType::f32, dev), o); }, "matrix");
  if (dev.is_cuda()) {
    expect_invalid_argument([&] { ops::add(a.to(Device::cpu()), b, y, o); }, "devices differ");
    expect_invalid_argument([&] { ops::cast(a.to(Device::cpu()), h, o); }, "devices differ");
  }
  for (float v : floats(y)) ASSERT_TRUE(std::isnan(v));
  for (float v : floats(h)) ASSERT_TRUE(std::isnan(v));
}

#define TESSERA_ELEMENTWISE_TESTS(Fixture, DEVICE, BACKEND)                                        \
  TEST_F(Fixture, AddMatchesReference) {                                                           \
    for (DType dt : kFloatDTypes)                                                                  \
      for (const auto& s : kElementwiseShapes) check_add(DEVICE, BACKEND, dt, s);                  \
  }                                                                                                \
  TEST_F(Fixture, AddStridedRows) {                                                                \
    for (DType dt : kFloatDTypes)                                                                  \
      for (int64_t n : {1, 7, 2048, 2051}) check_add_strided(DEVICE, BACKEND, dt, 9, n);           \
  }                                                                                                \
  TEST_F(Fixture, CastMatchesReference) {                                                          \
    for (DType from : kFloatDTypes)                                                                \
      for (DType to : kFloatDTypes)                                                                \
        for (const auto& s : kElementwiseShapes) check_cast(DEVICE, BACKEND, from, to, s);         \
  }                                                                                                \
  TEST_F(Fixture, TransposeMatchesReference) {                                                     \
    for (DType dt : kFloatDTypes)                                                                  \
      for (auto [r, c] : {std::pair<int64_t, int64_t>{1, 1}, {1, 37}, {37, 1}, {32, 32}, {33, 65}, {100, 7}, {0, 3}}) \
        check_transpose(DEVICE, BACKEND, dt, r, c);                                                \
  }                                                                                                \
  TEST_F(Fixture, BadInputIsAnErrorAndWritesNothing) { check_elementwise_bad_input(DEVICE, BACKEND); }

}  // namespace tessera::testing
