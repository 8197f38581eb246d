// Test cases of the sampling family, instantiated for the host (tests/ops) and the GPU (tests/gpu).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/test_util.h"
#include "tessera/ops/sampling.h"

namespace tessera::testing {

// Shapes around the tile width (32768 columns) and a Llama 3 vocabulary row.
inline const Shape kArgmaxShapes[] = {{1, 1}, {7}, {3, 7}, {2, 3, 1000}, {4, 32767}, {3, 32768}, {3, 32769},
                                      {2, 65537}, {3, 128256}, {0, 4}};

inline std::vector<int32_t> argmax_ids(const Tensor& t) {
  std::vector<int32_t> v(size_t(t.numel()));
  copy_bytes(v.data(), Device::cpu(), t.data(), t.device(), v.size() * sizeof(int32_t));
  return v;
}

inline Shape rows_shape(const Shape& s) { return Shape(s.begin(), s.end() - 1); }

inline void expect_argmax_as_reference(Device dev, dispatch::Backend backend, const Tensor& x) {
  const Shape out_shape = rows_shape(x.shape());
  Tensor got = poisoned(out_shape, DType::i32, dev), want = poisoned(out_shape, DType::i32, dev);
  ops::argmax(x, got, {backend});
  ops::argmax(x, want, {dispatch::Backend::reference});
  EXPECT_EQ(argmax_ids(got), argmax_ids(want));
}

inline void check_argmax(Device dev, dispatch::Backend backend, DType dt, const Shape& shape) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + shape_str(shape));
  expect_argmax_as_reference(dev, backend, random_tensor(shape, dt, dev, -8, 8));
}

// Rows built to test the rules: ties across tiles and within one, -inf and NaN entries, a row of nothing but
// NaN, NaN before -inf, the maximum in the last entry past a tile boundary. Each row's expected index is
// known here, independently of the reference.
inline void check_argmax_special_rows(Device dev, dispatch::Backend backend, DType dt, int64_t n) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + " special rows, n " + std::to_string(n));
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  const int64_t rows = 8;
  auto v = floats(random_tensor({rows, n}, DType::f32, Device::cpu(), -5, 5));
  std::vector<int32_t> want(rows);
  auto row = [&](int64_t r) { return v.data() + r * n; };
  // 0: one maximum, tied later (in another tile when n allows): the first wins.
  row(0)[n / 3] = 7.f;
  row(0)[n - 1] = 7.f;
  want[0] = int32_t(n == 1 ? 0 : n / 3);
  // 1: all -inf: the first entry.
  for (int64_t c = 0; c < n; ++c) row(1)[c] = -inf;
  want[1] = 0;
  // 2: all NaN: 0.
  for (int64_t c = 0; c < n; ++c) row(2)[c] = nan;
  want[2] = 0;
  // 3: NaN everywhere but one -inf near the end.
  for (int64_t c = 0; c < n; ++c) row(3)[c] = nan;
  row(3)[n - 1] = -inf;
  want[3] = int32_t(n - 1);
  // 4: the maximum is the last entry.
  row(4)[n - 1] = 9.f;
  want[4] = int32_t(n - 1);
  // 5: NaN in front of the maximum and scattered through the row.
  const int64_t top5 = n == 1 ? 0 : (n / 2) | 1;
  for (int64_t c = 0; c < n; c += 7) row(5)[c] = nan;
  row(5)[top5] = 8.f;
  want[5] = int32_t(top5);
  // 6: +inf twice: the first.
  row(6)[n / 4] = inf;
  row(6)[n - 1] = inf;
  want[6] = int32_t(n / 4);
  // 7: -inf prefix over the first tile(s), then ordinary values: the largest of those.
  for (int64_t c = 0; c < n * 3 / 4; ++c) row(7)[c] = -inf;
  row(7)[n - 1] = 6.f;
  want[7] = int32_t(n - 1);
  Tensor x = from_floats(v, {rows, n}, dt, dev);
  Tensor got = poisoned({rows}, DType::i32, dev);
  ops::argmax(x, got, {backend});
  EXPECT_EQ(argmax_ids(got), want);
  expect_argmax_as_reference(dev, backend, x);
}

// Rows that are not contiguous with each other.
inline void check_argmax_strided(Device dev, dispatch::Backend backend, DType dt, int64_t rows, int64_t n) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + " strided [" + std::to_string(rows) + ", " + std::to_string(n) + "]");
  Tensor xs = random_tensor({rows, n + 3}, dt, dev, -4, 4);
  expect_argmax_as_reference(dev, backend, Tensor::view(xs.data(), {rows, n}, dt, dev, {n + 3, 1}));
}

inline void check_argmax_bad_input(Device dev, dispatch::Backend backend) {
  const ops::Options o{backend};
  Tensor x = random_tensor({4, 16}, DType::f32, dev);
  Tensor out = poisoned({4}, DType::i32, dev);
  expect_invalid_argument([&] { ops::argmax(x, poisoned({5}, DType::i32, dev), o); }, "out");
  expect_invalid_argument([&] { ops::argmax(x, poisoned({4, 1}, DType::i32, dev), o); }, "out");
  expect_invalid_argument([&] { ops::argmax(x, poisoned({4}, DType::f32, dev), o); }, "dtype");
  expect_invalid_argument([&] { ops::argmax(random_ints({4, 16}, DType::i32, 0, 9, dev), out, o); }, "dtype");
  expect_invalid_argument([&] { ops::argmax(Tensor::view(nullptr, {4, 16}, DType::f32, dev), out, o); }, "null");
  expect_invalid_argument([&] { ops::argmax(random_tensor({4, 0}, DType::f32, dev), out, o); }, "empty last dim");
  Tensor wide = poisoned({4, 2}, DType::i32, dev);
  expect_invalid_argument([&] { ops::argmax(x, Tensor::view(wide.data(), {4}, DType::i32, dev, {2}), o); }, "contiguous");
  if (dev.is_cuda()) expect_invalid_argument([&] { ops::argmax(x, out.to(Device::cpu()), o); }, "devices differ");
  for (int32_t v : argmax_ids(out)) ASSERT_EQ(v, -1);  // the poison: nothing written
}

#define TESSERA_SAMPLING_TESTS(Fixture, DEVICE, BACKEND)                                                  \
  TEST_F(Fixture, ArgmaxMatchesReference) {                                                               \
    for (DType dt : kFloatDTypes)                                                                         \
      for (const auto& s : kArgmaxShapes) check_argmax(DEVICE, BACKEND, dt, s);                           \
  }                                                                                                       \
  TEST_F(Fixture, ArgmaxSpecialRows) {                                                                    \
    for (DType dt : kFloatDTypes)                                                                         \
      for (int64_t n : {1, 2, 37, 32768, 40000, 128256}) check_argmax_special_rows(DEVICE, BACKEND, dt, n); \
  }                                                                                                       \
  TEST_F(Fixture, ArgmaxStridedRows) {                                                                    \
    for (DType dt : kFloatDTypes)                                                                         \
      for (int64_t n : {5, 1000, 33000}) check_argmax_strided(DEVICE, BACKEND, dt, 6, n);                 \
  }                                                                                                       \
  TEST_F(Fixture, ArgmaxBadInputIsAnErrorAndWritesNothing) { check_argmax_bad_input(DEVICE, BACKEND); }

}  // namespace tessera::testing
