// Test cases of bmm and group_gemm, instantiated for the host (tests/ops) and the GPU (tests/gpu).
#pragma once
#include <gtest/gtest.h>

#include <cmath>

#include "common/test_util.h"
#include "ops/matmul_cases.h"
#include "tessera/ops/matmul.h"

namespace tessera::testing {

// ---- bmm ----

struct BmmShape { int64_t batch, m, k, n; };
inline const BmmShape kBmmShapes[] = {{1, 1, 1, 1}, {3, 7, 5, 11}, {2, 65, 97, 130}, {4, 64, 32, 64}, {1, 129, 33, 67},
                                      {5, 2, 300, 3}};

// How the operands are laid out in memory: contiguous; rows padded inside a larger buffer (any row and batch
// strides, and c's padding must stay unwritten); batch-major from a [M, B, K] buffer; b shared by every batch
// (batch stride 0); rows padded by whole 16-byte pieces (the copy engine reads them: the staged kernel).
enum class BmmStrides { contiguous, padded, transposed_batch, shared_b, padded_aligned };

// A view of `shape` at the start of a larger buffer, with the buffer's strides: rows and batches padded.
inline Tensor padded_view(const Tensor& buffer, const Shape& shape) {
  return Tensor::view(buffer.data(), shape, buffer.dtype(), buffer.device(), buffer.strides());
}

inline void check_bmm(Device dev, dispatch::Backend backend, DType dt, DType out, const BmmShape& s, ops::BLayout layout,
                      BmmStrides strides, ops::Activation act, bool bias, bool residual) {
  SCOPED_TRACE(std::string(dtype_name(dt)) + "->" + std::string(dtype_name(out)) + " bmm B=" + std::to_string(s.batch) +
               " m=" + std::to_string(s.m) + " k=" + std::to_string(s.k) + " n=" + std::to_string(s.n) +
               (layout == ops::BLayout::kn ? " kn" : " nk") + " strides=" + std::to_string(int(strides)) +
               " act=" + std::to_string(int(act)) + (bias ? " bias" : "") + (residual ? " residual" : ""));
  const Shape b_shape = layout == ops::BLayout::nk ? Shape{s.batch, s.n, s.k} : Shape{s.batch, s.k, s.n};
  const Shape c_shape{s.batch, s.m, s.n};
  Tensor a_buf, b_buf, a, b, c, c_buf;
  Tensor c_ref = poisoned(c_shape, out, dev);
  switch (strides) {
    case BmmStrides::contiguous:
      a = random_tensor({s.batch, s.m, s.k}, dt, dev);
      b = random_tensor(b_shape, dt, dev);
      c = poisoned(c_shape, out, dev);
      break;
    case BmmStrides::padded:
      a_buf = random_tensor({s.batch, s.m + 2, s.k + 3}, dt, dev);
      b_buf = random_tensor({b_shape[0], b_shape[1] + 1, b_shape[2] + 5}, dt, dev);
      c_buf = poisoned({s.batch, s.m + 1, s.n + 4}, out, dev);
      a = padded_view(a_buf, {s.batch, s.m, s.k});
      b = padded_view(b_buf, b_shape);
      c = padded_view(c_buf, c_shape);
      break;
    case BmmStrides::transposed_batch:
      a_buf = random_tensor({s.m, s.batch, s.k}, dt, dev);
      a = Tensor::view(a_buf.data(), {s.batch, s.m, s.k}, dt, dev, {s.k, s.batch * s.k, 1});
      b = random_tensor(b_shape, dt, dev);
      c = poisoned(c_shape, out, dev);
      break;
    case BmmStrides::padded_aligned:
      a_buf = random_tensor({s.batch, s.m + 3, s.k + 8}, dt, dev);
      b_buf = random_tensor({b_shape[0], b_shape[1] + 1, b_shape[2] + 16}, dt, dev);
      c_buf = poisoned({s.batch, s.m + 1, s.n + 8}, out, dev);  // rows the copy engine can write
      a = padded_view(a_buf, {s.batch, s.m, s.k});
      b = padded_view(b_buf, b_shape);
      c = padded_view(c_buf, c_shape);
      break;
    case BmmStrides::shared_b:
      a = random_tensor({s.batch, s.m, s.k}, dt, dev);
      b_buf = random_tensor({1, b_shape[1], b_shape[2]}, dt, dev);
      b = Tensor::view(b_buf.data(), b_shape, dt, dev, {0, b_shape[2], 1});
      c = poisoned(c_shape, out, dev);
      break;
  }
  ops::Epilogue e;
  e.activation = act;
  e.alpha = act == ops::Activation::none ? 1.f : 0.75f;
  if (bias) e.bias = random_tensor({s.n}, dt, dev);
  if (residual) e.residual = random_tensor(c_shape, out, dev);
  ops::bmm(a, b, c, layout, e, {backend});
  ops::bmm(a, b, c_ref, layout, e, {dispatch::Backend::reference});
  EXPECT_TRUE(all_close(c, c_ref, matmul_tolerance(dt, out, s.k)));
  if (c_buf.data()) {
    // The padding around c's rows was never written.
    const auto all = floats(c_buf);
    const int64_t rows = c_buf.size(1), cols = c_buf.size(2);
    int64_t written = 0;
    for (int64_t i = 0; i < s.batch; ++i)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < cols; ++j)
          if ((r >= s.m || j >= s.n) && !std::isnan(all[size_t((i * rows + r) * cols + j)])) ++written;
    EXPECT_EQ(written, 0) << "elements of c's padding were written";
  }
}

inline void check_bmm_sweep(Device dev, dispatch::Backend backend) {
  using ops::Activation;
  using ops::BLayout;
  for (DType dt : kFloatDTypes)
    for (const auto& s : kBmmShapes)
      for (auto layout : {BLayout::nk, BLayout::kn}) check_bmm(dev, backend, dt, dt, s, layout, BmmStrides::contiguous, Activation::none, false, false);
  for (DType dt : kFloatDTypes)
    for (auto strides : {BmmStrides::padded, BmmStrides::transposed_batch, BmmStrides::shared_b})
      for (auto layout : {BLayout::nk, BLayout::kn}) check_bmm(dev, backend, dt, dt, kBmmShapes[2], layout, strides, Activation::none, false, false);
  check_bmm(dev, backend, DType::bf16, DType::f32, kBmmShapes[2], BLayout::nk, BmmStrides::padded, Activation::none, true, false);
  check_bmm(dev, backend, DType::f16, DType::f16, kBmmShapes[4], BLayout::kn, BmmStrides::contiguous, Activation::silu, true, true);
  check_bmm(dev, backend, DType::bf16, DType::bf16, kBmmShapes[1], BLayout::nk, BmmStrides::padded, Activation::gelu, true, true);
  check_bmm(dev, backend, DType::f32, DType::f32, kBmmShapes[2], BLayout::nk, BmmStrides::transposed_batch, Activation::relu, false, true);
  // Problems of 2^25 multiply-adds and more, which the GPU runs one matmul each: aligned rows and odd ones.
  const BmmShape aligned{3, 320, 320, 328}, odd{2, 333, 401, 257};
  for (auto strides : {BmmStrides::contiguous, BmmStrides::padded, BmmStrides::transposed_batch, BmmStrides::shared_b})
    for (auto layout : {BLayout::nk, BLayout::kn}) check_bmm(dev, backend, DType::bf16, DType::bf16, aligned, layout, strides, Activation::none, false, false);
  check_bmm(dev, backend, DType::f16, DType::f32, odd, BLayout::nk, BmmStrides::padded, Activation::silu, true, true);
  check_bmm(dev, backend, DType::bf16, DType::bf16, odd, BLayout::kn, BmmStrides::shared_b, Activation::none, false, true);
  check_bmm(dev, backend, DType::f32, DType::f32, aligned, BLayout::nk, BmmStrides::contiguous, Activation::gelu, true, false);
  // 16-bit, B as [N, K], rows of whole 16-byte pieces: the staged kernel on Hopper (and on the host), every
  // layout of the operands it reads, edges of its 128 x 128 tiles, and the epilogue.
  const BmmShape staged[] = {{3, 200, 136, 264}, {2, 1, 8, 5}, {5, 129, 64, 130}, {1, 128, 256, 128}};
  for (DType dt : {DType::bf16, DType::f16})
    for (const auto& s : staged) check_bmm(dev, backend, dt, dt, s, BLayout::nk, BmmStrides::contiguous, Activation::none, false, false);
  for (auto strides : {BmmStrides::padded_aligned, BmmStrides::transposed_batch, BmmStrides::shared_b})
    check_bmm(dev, backend, DType::bf16, DType::bf16, staged[0], BLayout::nk, strides, Activation::none, false, false);
  check_bmm(dev, backend, DType::bf16, DType::bf16, staged[2], BLayout::nk, BmmStrides::padded_aligned, Activation::gelu, true, true);
  check_bmm(dev, backend, DType::f16, DType::f16, staged[0], BLayout::nk, BmmStrides::shared_b, Activation::silu, true, false);
  check_bmm(dev, backend, DType::bf16, DType::bf16, staged[1], BLayout::nk, BmmStrides::contiguous, Activation::relu, false, true);
}

// ---- group_gemm ----

struct GroupGemmCase { std::vector<int64_t> group_rows; int64_t k, n; };
inline const GroupGemmCase kGroupGemmCases[] = {{{1}, 1, 1}, {{5}, 7, 3}, {{0, 1, 70, 3, 129}, 97, 67},
                                                {{64, 64}, 32, 64}, {{2, 0, 0, 17}, 300, 130}};
// 16-bit with K a multiple of 8: the staged kernel on Hopper (and on the host). Short problems (96 rows or
// fewer on average: 64-row tiles) and long ones (128-row tiles); empty problems first, between and last;
// problems of one row, of a tile and one row, many problems.
inline const GroupGemmCase kStagedGroupGemmCases[] = {
    {{0, 1, 200, 3, 129, 0}, 136, 264},
    {{0, 1, 200, 3, 529}, 136, 264},
    {{300}, 64, 72},
    {{5, 0, 17, 33, 1, 40, 0, 2, 9, 64, 65, 12, 0, 3, 31, 8, 20}, 64, 128},
    {{1, 1}, 8, 8}};

inline Tensor offsets_tensor(const std::vector<int64_t>& group_rows, DType dtype, Device dev) {
  Tensor cpu = Tensor::empty({int64_t(group_rows.size()) + 1}, dtype);
  int64_t sum = 0;
  for (size_t g = 0; g <= group_rows.size(); ++g) {
    if (dtype == DType::i64) cpu.data_as<int64_t>()[g] = sum;
    else cpu.data_as<int32_t>()[g] = int32_t(sum);
    if (g < group_rows.size()) sum += group_rows[g];
  }
  return cpu.to(dev);
}

inline void check_group_gemm(Device dev, dispatch::Backend backend, DType dt, DType out, const GroupGemmCase& s, DType offset_dtype) {
  int64_t rows = 0;
  std::string sizes;
  for (int64_t r : s.group_rows) { rows += r; sizes += std::to_string(r) + ","; }
  SCOPED_TRACE(std::string(dtype_name(dt)) + "->" + std::string(dtype_name(out)) + " group_gemm rows=" + sizes +
               " k=" + std::to_string(s.k) + " n=" + std::to_string(s.n) + " offsets " + std::string(dtype_name(offset_dtype)));
  const int64_t groups = int64_t(s.group_rows.size());
  Tensor a = random_tensor({rows, s.k}, dt, dev), b = random_tensor({groups, s.n, s.k}, dt, dev);
  Tensor offsets = offsets_tensor(s.group_rows, offset_dtype, dev);
  Tensor c = poisoned({rows, s.n}, out, dev), c_ref = poisoned({rows, s.n}, out, dev);
  ops::group_gemm(a, b, offsets, c, {backend});
  ops::group_gemm(a, b, offsets, c_ref, {dispatch::Backend::reference});
  EXPECT_TRUE(all_close(c, c_ref, matmul_tolerance(dt, out, s.k)));
}

inline void check_group_gemm_sweep(Device dev, dispatch::Backend backend) {
  for (DType dt : kFloatDTypes)
    for (const auto& s : kGroupGemmCases) check_group_gemm(dev, backend, dt, dt, s, DType::i32);
  check_group_gemm(dev, backend, DType::bf16, DType::bf16, kGroupGemmCases[2], DType::i64);
  check_group_gemm(dev, backend, DType::f16, DType::f32, kGroupGemmCases[4], DType::i64);
  check_group_gemm(dev, backend, DType::f32, DType::f32, kGroupGemmCases[2], DType::i64);
  for (DType dt : {DType::bf16, DType::f16})
    for (const auto& s : kStagedGroupGemmCases) check_group_gemm(dev, backend, dt, dt, s, DType::i32);
  check_group_gemm(dev, backend, DType::bf16, DType::bf16, kStagedGroupGemmCases[1], DType::i64);
  check_group_gemm(dev, backend, DType::bf16, DType::bf16, kStagedGroupGemmCases[3], DType::i64);
}

// ---- bad input ----

inline void check_bmm_bad_input(Device dev, dispatch::Backend backend) {
  Tensor a = random_tensor({2, 4, 8}, DType::f32, dev), b = random_tensor({2, 6, 8}, DType::f32, dev);
  Tensor c = poisoned({2, 4, 6}, DType::f32, dev);
  const ops::Options o{backend};
  using ops::BLayout;
  expect_invalid_argument([&] { ops::bmm(a, random_tensor({3, 6, 8}, DType::f32, dev), c, BLayout::nk, {}, o); }, "batch sizes differ");
  expect_invalid_argument([&] { ops::bmm(a, random_tensor({2, 6, 7}, DType::f32, dev), c, BLayout::nk, {}, o); }, "inner dimensions");
  expect_invalid_argument([&] { ops::bmm(a, b, c, BLayout::kn, {}, o); }, "inner dimensions");
  expect_invalid_argument([&] { ops::bmm(a, b, poisoned({2, 4, 5}, DType::f32, dev), BLayout::nk, {}, o); }, "expected shape");
  expect_invalid_argument([&] { ops::bmm(a, random_tensor({2, 6, 8}, DType::bf16, dev), c, BLayout::nk, {}, o); }, "dtypes differ");
  expect_invalid_argument([&] { ops::bmm(random_tensor({4, 8}, DType::f32, dev), b, c, BLayout::nk, {}, o); }, "rank-3");
  expect_invalid_argument([&] { ops::bmm(a, b, c, BLayout(7), {}, o); }, "b_layout");
  expect_invalid_argument([&] { ops::bmm(a, b, Tensor(), BLayout::nk, {}, o); }, "c is missing");
  Tensor wide = random_tensor({2, 4, 16}, DType::f32, dev);
  Tensor a_strided_k = Tensor::view(wide.data(), {2, 4, 8}, DType::f32, dev, {64, 16, 2});
  expect_invalid_argument([&] { ops::bmm(a_strided_k, b, c, BLayout::nk, {}, o); }, "last-dim stride 2");
  ops::Epilogue wrong_bias;
  wrong_bias.bias = random_tensor({5}, DType::f32, dev);
  expect_invalid_argument([&] { ops::bmm(a, b, c, BLayout::nk, wrong_bias, o); }, "bias");
  ops::Epilogue wrong_residual;
  wrong_residual.residual = random_tensor({2, 4, 5}, DType::f32, dev);
  expect_invalid_argument([&] { ops::bmm(a, b, c, BLayout::nk, wrong_residual, o); }, "residual");
  for (float v : floats(c)) ASSERT_TRUE(std::isnan(v));
}

inline void check_group_gemm_bad_input(Device dev, dispatch::Backend backend) {
  Tensor a = random_tensor({10, 8}, DType::f32, dev), b = random_tensor({3, 6, 8}, DType::f32, dev);
  Tensor c = poisoned({10, 6}, DType::f32, dev);
  Tensor offsets = offsets_tensor({3, 0, 7}, DType::i32, dev);
  const ops::Options o{backend};
  expect_invalid_argument([&] { ops::group_gemm(a, random_tensor({3, 6, 7}, DType::f32, dev), offsets, c, o); }, "inner dimensions");
  expect_invalid_argument([&] { ops::group_gemm(a, random_tensor({6, 8}, DType::f32, dev), offsets, c, o); }, "rank-3");
  expect_invalid_argument([&] { ops::group_gemm(a, b, offsets, poisoned({10, 5}, DType::f32, dev), o); }, "expected shape");
  expect_invalid_argument([&] { ops::group_gemm(a, random_tensor({3, 6, 8}, DType::f16, dev), offsets, c, o); }, "dtypes differ");
  expect_invalid_argument([&] { ops::group_gemm(a, b, random_tensor({4}, DType::f32, dev), c, o); }, "offsets");
  expect_invalid_argument([&] { ops::group_gemm(a, b, offsets_tensor({3, 7}, DType::i32, dev), c, o); }, "offsets");
  expect_invalid_argument([&] { ops::group_gemm(a, b, Tensor(), c, o); }, "offsets is missing");
  if (dev.is_cpu()) {
    // Offsets on the CPU are checked for their values; on a GPU the kernel only keeps inside the tensors.
    Tensor decreasing = offsets_tensor({3, 0, 7}, DType::i64, dev);
    decreasing.data_as<int64_t>()[1] = 5;
    expect_invalid_argument([&] { ops::group_gemm(a, b, decreasing, c, o); }, "must not decrease");
    expect_invalid_argument([&] { ops::group_gemm(a, b, offsets_tensor({3, 0, 6}, DType::i64, dev), c, o); }, "rows of a");
    Tensor late_start = offsets_tensor({3, 0, 7}, DType::i32, dev);
    late_start.data_as<int32_t>()[0] = 1;
    expect_invalid_argument([&] { ops::group_gemm(a, b, late_start, c, o); }, "must be 0");
  } else {
    // Offsets on the CPU with a on the GPU: a device mismatch.
    expect_invalid_argument([&] { ops::group_gemm(a, b, offsets_tensor({3, 0, 7}, DType::i32, Device::cpu()), c, o); }, "offsets");
  }
  for (float v : floats(c)) ASSERT_TRUE(std::isnan(v));
}

}  // namespace tessera::testing
