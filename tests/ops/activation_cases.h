// Test cases of the activation family, instantiated for the host (tests/ops) and the GPU (tests/gpu).
#pragma once
#include <gtest/gtest.h>

#include <cmath>

#include "common/test_util.h"
#include "tessera/ops/activation.h"

namespace tessera::testing {

// Shapes of gelu's x (and y). Contiguous tensors are flattened by the launcher; strided rows (see
// gelu_strided_rows) take the row tiles.
inline const Shape kGeluShapes[] = {{1}, {1, 1}, {3, 7}, {13}, {2, 3, 64}, {5, 1000}, {3, 1025},
                                    {2, 2048}, {2, 4099}, {1, 20011}, {0, 5}};
// Widths n of silu_and_mul (x is [rows, 2n]).
inline const int64_t kSiluWidths[] = {1, 7, 64, 255, 256, 257, 1000, 2048, 2053, 11008};

// A tensor of `shape` ([rows, n]) whose rows lie `pad` elements apart in a larger buffer, filled at random.
inline Tensor strided_rows(int64_t rows, int64_t n, int64_t pad, DType dt, Device dev, float lo, float hi, Tensor& storage) {
  storage = random_tensor({rows, n + pad}, dt, dev, lo, hi);
  return Tensor::view(storage.data(), {rows, n}, dt, dev, {n + pad, 1});
}

inline void check_gelu(Device dev, dispatch::Backend backend, DType dt, const Shape& shape, ops::GeluApprox approx) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + shape_str(shape) + (approx == ops::GeluApprox::tanh ? " tanh" : " erf"));
  Tensor x = random_tensor(shape, dt, dev, -6, 6);
  Tensor y = poisoned(shape, dt, dev), y_ref = poisoned(shape, dt, dev);
  ops::gelu(x, y, approx, {backend});
  ops::gelu(x, y_ref, approx, {dispatch::Backend::reference});
  EXPECT_TRUE(all_close(y, y_ref, tolerance_for(dt)));
  // In place: y is x.
  ops::gelu(x, x, approx, {backend});
  EXPECT_TRUE(all_equal(x, y));
}

// Rows that are not contiguous with each other: the launcher cannot flatten them.
inline void check_gelu_strided(Device dev, dispatch::Backend backend, DType dt, int64_t rows, int64_t n, ops::GeluApprox approx) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + " strided [" + std::to_string(rows) + ", " + std::to_string(n) + "]");
  Tensor xs, ys;
  Tensor x = strided_rows(rows, n, 3, dt, dev, -6, 6, xs);
  Tensor y = strided_rows(rows, n, 5, dt, dev, 0, 1, ys);
  poison(ys);
  Tensor y_ref = poisoned({rows, n}, dt, dev);
  ops::gelu(x, y, approx, {backend});
  ops::gelu(x, y_ref, approx, {dispatch::Backend::reference});
  EXPECT_TRUE(all_close(y, y_ref, tolerance_for(dt)));
  // The gaps between y's rows are not written.
  const auto all = floats(ys);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = n; c < n + 5; ++c) ASSERT_TRUE(std::isnan(all[r * (n + 5) + c])) << r << ", " << c;
}

inline void check_silu_and_mul(Device dev, dispatch::Backend backend, DType dt, const Shape& lead, int64_t n) {
  Shape xs = lead, ys = lead;
  xs.push_back(2 * n);
  ys.push_back(n);
  SCOPED_TRACE(std::string(dtype_name(dt)) + shape_str(xs));
  Tensor x = random_tensor(xs, dt, dev, -8, 8);
  Tensor y = poisoned(ys, dt, dev), y_ref = poisoned(ys, dt, dev);
  ops::silu_and_mul(x, y, {backend});
  ops::silu_and_mul(x, y_ref, {dispatch::Backend::reference});
  EXPECT_TRUE(all_close(y, y_ref, tolerance_for(dt)));
}

inline void check_silu_and_mul_strided(Device dev, dispatch::Backend backend, DType dt, int64_t rows, int64_t n) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + " strided x [" + std::to_string(rows) + ", " + std::to_string(2 * n) + "]");
  Tensor xs;
  Tensor x = strided_rows(rows, 2 * n, 7, dt, dev, -8, 8, xs);
  Tensor y = poisoned({rows, n}, dt, dev), y_ref = poisoned({rows, n}, dt, dev);
  ops::silu_and_mul(x, y, {backend});
  ops::silu_and_mul(x, y_ref, {dispatch::Backend::reference});
  EXPECT_TRUE(all_close(y, y_ref, tolerance_for(dt)));
}

inline void check_activation_bad_input(Device dev, dispatch::Backend backend) {
  const ops::Options o{backend};
  Tensor x = random_tensor({4, 16}, DType::f32, dev);
  Tensor y = poisoned({4, 16}, DType::f32, dev), h = poisoned({4, 8}, DType::f32, dev);
  expect_invalid_argument([&] { ops::gelu(x, poisoned({4, 15}, DType::f32, dev), ops::GeluApprox::none, o); }, "shapes differ");
  expect_invalid_argument([&] { ops::gelu(x, poisoned({4, 16}, DType::bf16, dev), ops::GeluApprox::none, o); }, "dtype");
  expect_invalid_argument([&] { ops::gelu(random_ints({4, 16}, DType::i32, 0, 5, dev), y, ops::GeluApprox::none, o); }, "dtype must be");
  expect_invalid_argument([&] { ops::gelu(Tensor::view(nullptr, {4, 16}, DType::f32, dev), y, ops::GeluApprox::none, o); }, "null");
  expect_invalid_argument([&] { ops::gelu(x, y, ops::GeluApprox(7), o); }, "approx");
  expect_invalid_argument([&] { ops::silu_and_mul(x, y, o); }, "y");
  expect_invalid_argument([&] { ops::silu_and_mul(random_tensor({4, 15}, DType::f32, dev), y, o); }, "even");
  expect_invalid_argument([&] { ops::silu_and_mul(x, poisoned({4, 8}, DType::f16, dev), o); }, "dtype");
  expect_invalid_argument([&] { ops::silu_and_mul(x, Tensor::view(nullptr, {4, 8}, DType::f32, dev), o); }, "null");
  if (dev.is_cuda()) {
    expect_invalid_argument([&] { ops::gelu(x.to(Device::cpu()), y, ops::GeluApprox::none, o); }, "devices differ");
    expect_invalid_argument([&] { ops::silu_and_mul(x, h.to(Device::cpu()), o); }, "devices differ");
  }
  // Nothing was written on any of these.
  for (float v : floats(y)) ASSERT_TRUE(std::isnan(v));
  for (float v : floats(h)) ASSERT_TRUE(std::isnan(v));
}

// Defines the family's tests on a fixture (whose SetUp may skip, as the GPU's does).
#define TESSERA_ACTIVATION_TESTS(Fixture, DEVICE, BACKEND)                                                     \
  TEST_F(Fixture, GeluMatchesReference) {                                                                      \
    for (auto approx : {ops::GeluApprox::none, ops::GeluApprox::tanh})                                         \
      for (DType dt : kFloatDTypes)                                                                            \
        for (const auto& s : kGeluShapes) check_gelu(DEVICE, BACKEND, dt, s, approx);                          \
  }                                                                                                            \
  TEST_F(Fixture, GeluStridedRows) {                                                                           \
    for (auto approx : {ops::GeluApprox::none, ops::GeluApprox::tanh})                                         \
      for (DType dt : kFloatDTypes)                                                                            \
        for (int64_t n : {1, 7, 256, 257, 3000}) check_gelu_strided(DEVICE, BACKEND, dt, 11, n, approx);       \
  }                                                                                                            \
  TEST_F(Fixture, SiluAndMulMatchesReference) {                                                                \
    for (DType dt : kFloatDTypes)                                                                              \
      for (int64_t n : kSiluWidths) {                                                                          \
        check_silu_and_mul(DEVICE, BACKEND, dt, {3}, n);                                                       \
        check_silu_and_mul(DEVICE, BACKEND, dt, {2, 9}, n);                                                    \
      }                                                                                                        \
    check_silu_and_mul(DEVICE, BACKEND, DType::f32, {1}, 1);                                                   \
    check_silu_and_mul(DEVICE, BACKEND, DType::bf16, {0}, 16);                                                 \
  }                                                                                                            \
  TEST_F(Fixture, SiluAndMulStridedRows) {                                                                     \
    for (DType dt : kFloatDTypes)                                                                              \
      for (int64_t n : {1, 13, 256, 1031}) check_silu_and_mul_strided(DEVICE, BACKEND, dt, 17, n);            \
  }                                                                                                            \
  TEST_F(Fixture, BadInputIsAnErrorAndWritesNothing) { check_activation_bad_input(DEVICE, BACKEND); }

}  // namespace tessera::testing
