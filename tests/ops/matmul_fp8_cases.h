// Test cases of matmul_fp8, instantiated for the host (tests/ops) and the GPU (tests/gpu).
#pragma once
#include <gtest/gtest.h>

#include <cmath>

#include "common/test_util.h"
#include "ops/matmul_cases.h"
#include "tessera/ops/matmul.h"

namespace tessera::testing {

inline void check_matmul_fp8(Device dev, dispatch::Backend backend, DType out, const MatmulShape& s, float scale_a, float scale_b) {
  SCOPED_TRACE("fp8_e4m3->" + std::string(dtype_name(out)) + " a" + shape_str(s.a) + " n=" + std::to_string(s.n) +
               " scales " + std::to_string(scale_a) + ", " + std::to_string(scale_b));
  const int64_t k = s.a.back();
  Shape cs = s.a;
  cs.back() = s.n;
  // Values up to 4 in magnitude: e4m3's coarse steps and its subnormals (below 2^-6) both occur.
  Tensor a = random_tensor(s.a, DType::fp8_e4m3, dev, -4.f, 4.f), b = random_tensor({s.n, k}, DType::fp8_e4m3, dev, -4.f, 4.f);
  Tensor c = poisoned(cs, out, dev), c_ref = poisoned(cs, out, dev);
  ops::matmul_fp8(a, b, c, scale_a, scale_b, {backend});
  ops::matmul_fp8(a, b, c_ref, scale_a, scale_b, {dispatch::Backend::reference});
  Tolerance tol = matmul_tolerance(DType::bf16, out, k);
  if (out == DType::f32) tol.abs *= 16 * std::abs(scale_a * scale_b);  // products up to 16 times larger than in [-1, 1]
  // The fp8 tensor cores add a k step's products aligned to the largest of them, keeping about 13 bits (H100:
  // errors up to 1.6e-4 of the products' summed magnitudes, K 144-4096, against fp32 sums): a bound of 2^-10
  // of that sum (4 K |scale| for values uniform in [-4, 4]) on top of the output's rounding.
  tol.abs += 4.0 * double(k) * std::abs(double(scale_a) * double(scale_b)) / 1024.0;
  EXPECT_TRUE(all_close(c, c_ref, tol));
}

inline void check_matmul_fp8_sweep(Device dev, dispatch::Backend backend) {
  for (DType out : kFloatDTypes)
    for (const auto& s : kMatmulShapes) check_matmul_fp8(dev, backend, out, s, 0.37f, 0.5f);
  check_matmul_fp8(dev, backend, DType::bf16, kMatmulShapes[3], 1.f, 1.f);
  check_matmul_fp8(dev, backend, DType::f32, kMatmulShapes[3], -2.5f, 0.001f);
  // Rows of whole 16-byte pieces (K a multiple of 16): the fp8 kernels themselves (staged_launch.h). One row
  // (the few-rows kernel; K past its 2048-wide tiles), 2-4 rows, decode-sized M, M and N off the tiles, K off
  // the 128-wide stages, and K = 4096 (stage sums added in fp32: the tensor cores' own fp8 sums would drift).
  const MatmulShape fp8_shapes[] = {{{1, 4096}, 300}, {{1, 2064}, 5}, {{3, 256}, 130}, {{2, 2, 48}, 17},
                                    {{40, 512}, 264}, {{67, 208}, 300}, {{257, 144}, 520}, {{130, 4096}, 136}};
  for (DType out : kFloatDTypes)
    for (const auto& s : fp8_shapes) check_matmul_fp8(dev, backend, out, s, 0.37f, 0.5f);
  check_matmul_fp8(dev, backend, DType::f32, fp8_shapes[7], -2.5f, 0.001f);
}

inline void check_matmul_fp8_bad_input(Device dev, dispatch::Backend backend) {
  Tensor a = random_tensor({4, 8}, DType::fp8_e4m3, dev), b = random_tensor({6, 8}, DType::fp8_e4m3, dev);
  Tensor c = poisoned({4, 6}, DType::bf16, dev);
  const ops::Options o{backend};
  expect_invalid_argument([&] { ops::matmul_fp8(a, random_tensor({6, 7}, DType::fp8_e4m3, dev), c, 1.f, 1.f, o); }, "inner dimensions");
  expect_invalid_argument([&] { ops::matmul_fp8(a, b, poisoned({4, 5}, DType::bf16, dev), 1.f, 1.f, o); }, "expected shape");
  expect_invalid_argument([&] { ops::matmul_fp8(random_tensor({4, 8}, DType::bf16, dev), b, c, 1.f, 1.f, o); }, "a is bf16");
  expect_invalid_argument([&] { ops::matmul_fp8(a, random_tensor({6, 8}, DType::fp8_e5m2, dev), c, 1.f, 1.f, o); }, "b is fp8_e5m2");
  expect_invalid_argument([&] { ops::matmul_fp8(a, b, poisoned({4, 6}, DType::fp8_e4m3, dev), 1.f, 1.f, o); }, "c is fp8_e4m3");
  expect_invalid_argument([&] { ops::matmul_fp8(a, b, c, NAN, 1.f, o); }, "finite");
  expect_invalid_argument([&] { ops::matmul_fp8(a, Tensor(), c, 1.f, 1.f, o); }, "b is missing");
  for (float v : floats(c)) ASSERT_TRUE(std::isnan(v));
}

}  // namespace tessera::testing
