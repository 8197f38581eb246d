// Test cases of the norm family, instantiated for the host (tests/ops) and the GPU (tests/gpu).
#pragma once
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "tessera/ops/elementwise.h"
#include "tessera/ops/norm.h"

namespace tessera::testing {

inline const Shape kNormShapes[] = {{1, 1}, {3, 7}, {2, 3, 64}, {5, 1000}, {9, 1024}, {3, 1025}, {2, 4096}, {65, 4096}, {67, 2000}, {70, 5003}, {2, 8192}, {2, 8193}, {1, 20011}};

// dt: x (and the residual); out: y and the weight (an f32 x may be normalised into f16/bf16).
inline void check_rms_norm(Device dev, dispatch::Backend backend, DType dt, const Shape& shape, bool residual,
                           DType out = DType::u8) {
  if (out == DType::u8) out = dt;
  SCOPED_TRACE(std::string(dtype_name(dt)) + "->" + std::string(dtype_name(out)) + shape_str(shape) +
               (residual ? " residual" : ""));
  const int64_t n = shape.back();
  Tensor x = random_tensor(shape, dt, dev, -2, 2), w = random_tensor({n}, out, dev, 0.5, 1.5);
  Tensor r = random_tensor(shape, dt, dev);
  Tensor y = poisoned(shape, out, dev), y_ref = poisoned(shape, out, dev);
  const float eps = 1e-5f;
  if (residual) {
    Tensor sum = poisoned(shape, dt, dev), sum_ref = poisoned(shape, dt, dev);
    ops::rms_norm_residual(x, r, sum, w, y, eps, {backend});
    ops::rms_norm_residual(x, r, sum_ref, w, y_ref, eps, {dispatch::Backend::reference});
    EXPECT_TRUE(all_equal(sum, sum_ref));
    // In place: the sum overwrites the residual.
    Tensor y2 = poisoned(shape, out, dev);
    ops::rms_norm_residual(x, r, r, w, y2, eps, {backend});
    EXPECT_TRUE(all_equal(r, sum_ref));
    EXPECT_TRUE(all_close(y2, y_ref, tolerance_for(out)));
  } else {
    ops::rms_norm(x, w, y, eps, {backend});
    ops::rms_norm(x, w, y_ref, eps, {dispatch::Backend::reference});
  }
  EXPECT_TRUE(all_close(y, y_ref, tolerance_for(out)));
}

inline void check_layer_norm(Device dev, dispatch::Backend backend, DType dt, const Shape& shape, DType out = DType::u8) {
  if (out == DType::u8) out = dt;
  SCOPED_TRACE(std::string(dtype_name(dt)) + "->" + std::string(dtype_name(out)) + shape_str(shape));
  const int64_t n = shape.back();
  // A large common offset checks that the variance is computed in the centred (stable) form.
  Tensor x = random_tensor(shape, dt, dev, 99, 101);
  Tensor w = random_tensor({n}, out, dev, 0.5, 1.5), b = random_tensor({n}, out, dev);
  Tensor y = poisoned(shape, out, dev), y_ref = poisoned(shape, out, dev);
  ops::layer_norm(x, w, b, y, 1e-5f, {backend});
  ops::layer_norm(x, w, b, y_ref, 1e-5f, {dispatch::Backend::reference});
  auto tol = tolerance_for(out);
  // Inputs near 100 with spread 1: an fp32 mean carries ~1e-5 relative error, 1e-3 after normalising. The
  // uncentred formula E[x^2] - mean^2 would be off by far more.
  if (out == DType::f32) tol = {1e-3, 1e-3};
  EXPECT_TRUE(all_close(y, y_ref, tol));
}

inline void check_norm_bad_input(Device dev, dispatch::Backend backend) {
  Tensor x = random_tensor({4, 16}, DType::f32, dev), w = random_tensor({16}, DType::f32, dev);
  Tensor y = poisoned({4, 16}, DType::f32, dev);
  const ops::Options o{backend};
  expect_invalid_argument([&] { ops::rms_norm(x, random_tensor({15}, DType::f32, dev), y, 1e-5f, o); }, "weight");
  expect_invalid_argument([&] { ops::rms_norm(x, w, poisoned({4, 15}, DType::f32, dev), 1e-5f, o); }, "y");
  expect_invalid_argument([&] { ops::rms_norm(x, w, poisoned({4, 16}, DType::bf16, dev), 1e-5f, o); }, "dtype");
  // Only an f32 x may change dtype on the way out.
  const Tensor x16 = random_tensor({4, 16}, DType::bf16, dev);
  expect_invalid_argument([&] { ops::rms_norm(x16, w, y, 1e-5f, o); }, "only an f32 x");
  expect_invalid_argument([&] { ops::rms_norm_residual(x, x16, x, w, y, 1e-5f, o); }, "residual");
  expect_invalid_argument([&] { ops::rms_norm(x, w, y, -1.f, o); }, "eps");
  expect_invalid_argument([&] { ops::rms_norm(Tensor::view(nullptr, {4, 16}, DType::f32, dev, {}), w, y, 1e-5f, o); }, "null");
  expect_invalid_argument([&] { ops::layer_norm(x, w, random_tensor({8}, DType::f32, dev), y, 1e-5f, o); }, "bias");
  if (dev.is_cuda()) expect_invalid_argument([&] { ops::rms_norm(x, w.to(Device::cpu()), y, 1e-5f, o); }, "devices differ");
  // Nothing was written on any of these.
  for (float v : floats(y)) ASSERT_TRUE(std::isnan(v));
}

// rms_norm with Options::weights_settled, right after the kernel that writes its input (a cast into x, or into
// the residual, which held NaN before it): the kernel for a decode step's few rows asks for the weight before it
// waits for that kernel, and must read x and the residual only after it; the others ignore the promise. Its rows
// (1 and 2 of 4096, 5 of 3001), those of the other one-pass kernels (3 x 1000, 2 x 8192) and of the multi-pass
// one (1 x 8195); an f32 stream into bf16 and bf16 alone; three rounds each.
inline void check_rms_norm_with_settled_weight(Device dev, dispatch::Backend backend) {
  const ops::Options settled{backend, nullptr, true}, reference{dispatch::Backend::reference};
  const float eps = 1e-5f;
  for (const auto& shape : {Shape{1, 4096}, Shape{2, 4096}, Shape{3, 1000}, Shape{5, 3001}, Shape{2, 8192}, Shape{1, 8195}})
    for (DType dt : {DType::f32, DType::bf16})
      for (bool residual : {false, true}) {
        const DType out = DType::bf16;
        const int64_t n = shape.back();
        SCOPED_TRACE(std::string(dtype_name(dt)) + shape_str(shape) + (residual ? " residual" : ""));
        // `written` is what the cast right before the norm writes (x, or the residual); `values` its contents.
        const Tensor values = random_tensor(shape, DType::f32, dev, -2, 2), w = random_tensor({n}, out, dev, 0.5, 1.5);
        const Tensor x = random_tensor(shape, dt, dev, -2, 2), written = poisoned(shape, dt, dev), poison = poisoned(shape, dt, dev);
        const Tensor want_values = poisoned(shape, dt, dev);
        ops::cast(values, want_values, reference);
        const Tensor y_ref = poisoned(shape, out, dev), sum_ref = poisoned(shape, dt, dev);
        if (residual) ops::rms_norm_residual(x, want_values, sum_ref, w, y_ref, eps, reference);
        else ops::rms_norm(want_values, w, y_ref, eps, reference);
        for (int round = 0; round < 3; ++round) {
          SCOPED_TRACE("round " + std::to_string(round));
          copy_bytes(written.data(), dev, poison.data(), dev, size_t(written.nbytes()));
          const Tensor y = poisoned(shape, out, dev), sum = poisoned(shape, dt, dev);
          ops::cast(values, written, {backend});
          if (residual) ops::rms_norm_residual(x, written, sum, w, y, eps, settled);
          else ops::rms_norm(written, w, y, eps, settled);
          EXPECT_TRUE(all_close(y, y_ref, tolerance_for(out)));
          if (residual) {
            EXPECT_TRUE(all_equal(sum, sum_ref));
          }
        }
      }
}

#define TESSERA_NORM_TESTS(Suite, DEVICE, BACKEND)                                                        \
  TEST(Suite, RmsNormMatchesReference) {                                                                  \
    for (DType dt : kFloatDTypes)                                                                         \
      for (const auto& s : kNormShapes) check_rms_norm(DEVICE, BACKEND, dt, s, false);                   \
  }                                                                                                       \
  TEST(Suite, RmsNormResidualMatchesReference) {                                                          \
    for (DType dt : kFloatDTypes)                                                                         \
      for (const auto& s : kNormShapes) check_rms_norm(DEVICE, BACKEND, dt, s, true);                    \
  }                                                                                                       \
  TEST(Suite, LayerNormMatchesReference) {                                                                \
    for (DType dt : kFloatDTypes)                                                                         \
      for (const auto& s : kNormShapes) check_layer_norm(DEVICE, BACKEND, dt, s);                        \
  }                                                                                                       \
  TEST(Suite, F32StreamNormalisedInto16Bit) {                                                             \
    for (DType out : {DType::bf16, DType::f16})                                                           \
      for (const auto& s : kNormShapes) {                                                                 \
        check_rms_norm(DEVICE, BACKEND, DType::f32, s, false, out);                                       \
        check_rms_norm(DEVICE, BACKEND, DType::f32, s, true, out);                                        \
        check_layer_norm(DEVICE, BACKEND, DType::f32, s, out);                                            \
      }                                                                                                   \
  }                                                                                                       \
  TEST(Suite, RmsNormWithSettledWeightReadsItsInputAfterTheKernelBefore) {                               \
    check_rms_norm_with_settled_weight(DEVICE, BACKEND);                                                  \
  }                                                                                                       \
  TEST(Suite, BadInputIsAnErrorAndWritesNothing) { check_norm_bad_input(DEVICE, BACKEND); }

}  // namespace tessera::testing
