// The staged pipeline's copy-engine operations on the GPU against values known exactly (and the host mode):
// accumulator tiles stored through the copy engine (store_async) for every tile shape and consumer layout the
// kernels use, clipped at every edge of C and nothing written outside it; the whole pipeline with tiles a
// cluster loads together (load_async_multicast), with C exact in fp32; and tiles gathered from boxes of scattered
// rows (load_row_boxes_async).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/test_util.h"
#include "tile_staged.h"
#include "tile_staged_kernels.h"

#if TESSERA_WITH_CUDA
namespace tessera::tile_staged_tests {
namespace {
using namespace tessera::testing;

DType dtype_of(int code) { return code == 0 ? DType::bf16 : code == 1 ? DType::f16 : DType::f32; }

// An [rows, cols] view in a poisoned buffer with a row before and after it and columns past it (the row stride
// kept 16-byte aligned, as the copy engine needs).
struct Window {
  Tensor buffer, view;
};
Window window(int64_t rows, int64_t cols, DType dt, Device dev) {
  const int64_t per_16_bytes = 16 / int64_t(dtype_size(dt)), stride = (cols + 9 + per_16_bytes - 1) / per_16_bytes * per_16_bytes;
  Window w;
  w.buffer = poisoned({rows + 2, stride}, dt, dev);
  w.view = Tensor::view(static_cast<char*>(w.buffer.data()) + stride * dtype_size(dt), {rows, cols}, dt, dev, {stride, 1});
  return w;
}

// A window holding `values` (rounded to dt), the poison around it, on `dev`.
Window window_with(const std::vector<float>& values, int64_t rows, int64_t cols, DType dt, Device dev) {
  Window w = window(rows, cols, dt, Device::cpu());
  Tensor v = from_floats(values, {rows, cols}, dt);
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(static_cast<char*>(w.view.data()) + r * w.view.strides()[0] * dtype_size(dt),
                static_cast<const char*>(v.data()) + r * cols * dtype_size(dt), size_t(cols) * dtype_size(dt));
  if (dev == Device::cpu()) return w;
  Window on;
  on.buffer = w.buffer.to(dev);
  on.view = Tensor::view(static_cast<char*>(on.buffer.data()) + (static_cast<char*>(w.view.data()) - static_cast<char*>(w.buffer.data())),
                         w.view.shape(), dt, dev, w.view.strides());
  return on;
}

// The bytes of the buffer where the view is, and elsewhere, the poison.
Tensor expected_window(const Window& like, const std::vector<float>& values, int64_t rows, int64_t cols, DType dt) {
  Window w = window_with(values, rows, cols, dt, Device::cpu());
  EXPECT_EQ(w.buffer.shape(), like.buffer.shape());
  return w.buffer;
}

// The host mode (the specification) is checked with or without a GPU.
// Bit-identical buffers, or where they first differ: (row, column) of the buffer, inside the view (one row in,
// `cols` wide) or not, and both values.
::testing::AssertionResult same_window(const Tensor& got, const Tensor& want, int64_t rows, int64_t cols) {
  const int64_t stride = want.shape()[1], size = int64_t(dtype_size(want.dtype()));
  const auto g = floats(got), w = floats(want);
  const char* gb = static_cast<const char*>(got.data());
  const char* wb = static_cast<const char*>(want.data());
  int64_t wrong = 0, first = -1, inside = 0;
  for (int64_t i = 0; i < want.numel(); ++i)
    if (std::memcmp(gb + i * size, wb + i * size, size_t(size)) != 0) {
      if (first < 0) first = i;
      ++wrong;
      const int64_t r = i / stride - 1, c = i % stride;
      inside += r >= 0 && r < rows && c < cols;
    }
  if (wrong == 0) return ::testing::AssertionSuccess();
  const int64_t r = first / stride - 1, c = first % stride;
  return ::testing::AssertionFailure() << wrong << " elements differ (" << inside << " inside the " << rows << " x " << cols
                                       << " view); the first at view row " << r << ", column " << c << ": got " << g[size_t(first)]
                                       << ", want " << w[size_t(first)];
}

class StoreThrough : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(TileStagedGpu, StoreThrough, ::testing::Range(0, kNumStoreThroughConfigs));

// Accumulator tiles stored through a resident tile into planes of a stack (attention's output): each tile
// exact, clipped to its plane (a tile that overhangs the last plane writes nothing past it).
TEST_P(StoreThrough, WritesEveryPlaneExactlyAndNothingOutside) {
  const bool gpu_here = cuda_available();
  const StoreThroughConfig& s = kStoreThroughConfigs[GetParam()];
  const DType dt = dtype_of(s.dtype);
  for (auto [planes, rows] : {std::pair<int64_t, int64_t>{1, 128}, {1, 1}, {1, 127}, {1, 300}, {3, 128}, {3, 200}}) {
    SCOPED_TRACE(std::string(s.why) + ", " + std::to_string(planes) + " planes of " + std::to_string(rows) + " rows");
    const Tensor src = random_tensor({planes * rows, s.d}, DType::f32, Device::cpu(), -3.f, 3.f);
    const Tensor want = expected_window(window(planes * rows, s.d, dt, Device::cpu()), floats(src), planes * rows, s.d, dt);

    Window host = window(planes * rows, s.d, dt, Device::cpu());
    ASSERT_TRUE(tile_host::store_through_tiles(GetParam(), src, host.view, planes));
    EXPECT_TRUE(same_window(host.buffer, want, planes * rows, s.d)) << "host mode";

    if (!gpu_here) continue;
    Window gpu = window(planes * rows, s.d, dt, Device::cuda());
    if (!tile_cuda::store_through_tiles(GetParam(), src.to(Device::cuda()), gpu.view, planes))
      GTEST_SKIP() << "skipped: not a Hopper GPU";
    EXPECT_TRUE(same_window(gpu.buffer.to(Device::cpu()), want, planes * rows, s.d)) << "GPU";
  }
  if (!gpu_here) GTEST_SKIP() << "skipped: no GPU (the host mode was checked)";
}

class StoreAsync : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(TileStagedGpu, StoreAsync, ::testing::Range(0, kNumStoreConfigs));

TEST_P(StoreAsync, WritesEveryTileExactlyAndNothingOutside) {
  const bool gpu_here = cuda_available();
  const int config = GetParam();
  {
    const StoreConfig& s = kStoreConfigs[config];
    const DType dt = dtype_of(s.dtype);
    // Rows of whole 16-byte pieces (tma_store_compatible): `piece` elements.
    const int64_t piece = 16 / int64_t(dtype_size(dt));
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{s.bm, s.bn}, {1, piece}, {2 * s.bm + 37, 3 * s.bn + 3 * piece},
                              {s.bm - 1, s.bn + piece}}) {
      SCOPED_TRACE(std::string(s.why) + ", C " + std::to_string(rows) + " x " + std::to_string(cols));
      const Tensor src = random_tensor({rows, cols}, DType::f32, Device::cpu(), -3.f, 3.f);
      // What is added (a tensor of its own, or what the destination holds before the store), in dt.
      const Tensor add = random_tensor({rows, cols}, dt, Device::cpu(), -3.f, 3.f);
      const std::vector<float> added = floats(add);
      std::vector<float> sum = floats(src);
      if (s.add != 0)
        for (size_t i = 0; i < sum.size(); ++i) sum[i] += added[i];  // in fp32, rounded once to dt
      const Tensor want = expected_window(window(rows, cols, dt, Device::cpu()), sum, rows, cols, dt);
      auto destination = [&](Device dev) { return s.add == 2 ? window_with(added, rows, cols, dt, dev) : window(rows, cols, dt, dev); };

      Window host = destination(Device::cpu());
      ASSERT_TRUE(tile_host::store_async_tiles(config, src, host.view, add));
      EXPECT_TRUE(same_window(host.buffer, want, rows, cols)) << "host mode";

      if (!gpu_here) continue;
      Window gpu = destination(Device::cuda());
      if (!tile_cuda::store_async_tiles(config, src.to(Device::cuda()), gpu.view, add.to(Device::cuda())))
        GTEST_SKIP() << "skipped: not a Hopper GPU";
      EXPECT_TRUE(same_window(gpu.buffer.to(Device::cpu()), want, rows, cols)) << "GPU";
    }
  }
  // A row narrower than a 16-byte piece: the copy engine would write past it, so store_async refuses it.
  const Tensor src = random_tensor({5, 3}, DType::f32);
  Window narrow = window(5, 3, dtype_of(kStoreConfigs[config].dtype), Device::cpu());
  const Tensor narrow_add = random_tensor({5, 3}, dtype_of(kStoreConfigs[config].dtype));
  expect_invalid_argument([&] { tile_host::store_async_tiles(config, src, narrow.view, narrow_add); }, "16-byte");
  if (!gpu_here) GTEST_SKIP() << "skipped: no GPU (the host mode was checked)";
}

// A [m, k] (k a multiple of 8: the copy engine's 16-byte rows) with A[i][j] = 1 where j % 64 == i % 64: C[i][n] = the sum of B[n][j] over j = i % 64 (mod 64), which
// is exact in fp32 for small integers B. Every stage and every row of A's and B's tiles counts.
std::vector<float> stacked_identity(int64_t m, int64_t k) {
  std::vector<float> a(size_t(m * k), 0.f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = i % 64; j < k; j += 64) a[size_t(i * k + j)] = 1.f;
  return a;
}

// The operands of a product with stacked_identity A: A [m, k] and B [n, k] of small integers (bf16), and
// C = A @ B^T, exact.
struct StackedProduct {
  Tensor a, b;
  std::vector<float> c;
};
StackedProduct stacked_product(int64_t m, int64_t n, int64_t k) {
  std::vector<float> bv = floats(random_tensor({n, k}, DType::f32, Device::cpu(), -4.f, 5.f));
  for (float& x : bv) x = std::floor(x);  // small integers: every sum is exact
  StackedProduct p{from_floats(stacked_identity(m, k), {m, k}, DType::bf16), from_floats(bv, {n, k}, DType::bf16),
                   std::vector<float>(size_t(m * n))};
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0.f;
      for (int64_t q = i % 64; q < k; q += 64) sum += bv[size_t(j * k + q)];
      p.c[size_t(i * n + j)] = sum;
    }
  return p;
}

class StagedMma : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(TileStagedGpu, StagedMma, ::testing::Range(0, kNumMmaConfigs));

TEST_P(StagedMma, WithMulticastLoadsAndCopyEngineStoresIsExact) {
  const bool gpu_here = cuda_available();
  const int config = GetParam();
  {
    const MmaConfig& s = kMmaConfigs[config];
    // Tile rows not a multiple of the cluster (a block past the last row), K with a partial last stage and
    // more stages than the pipeline holds, N crossing a tile edge; few blocks (many tiles each) and many.
    // n a multiple of 4: C's fp32 rows whole 16-byte pieces, as the copy engine writes them.
    for (auto [m, n, k, blocks] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{2 * s.bm + 5, 2 * s.bn + 12, 64 * 5 + 24, 2},
                                   {s.bm, s.bn, 64, 132},
                                   {5 * s.bm - 3, s.bn + 4, 64 * 9, 132},
                                   {1, 4, 8, 2}}) {
      SCOPED_TRACE(std::string(s.why) + ", " + std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k) +
                   ", at most " + std::to_string(blocks) + " blocks");
      const auto [a, b, want] = stacked_product(m, n, k);

      Tensor host_c = poisoned({m, n}, DType::f32);
      ASSERT_TRUE(tile_host::mma_store(config, a, b, host_c, blocks));
      EXPECT_TRUE(all_close(floats(host_c), want, {0, 0})) << "host mode";

      if (!gpu_here) continue;
      // C's rows must be 16-byte aligned for the copy engine: n padded to 4 floats, the view n wide.
      Window gpu_c = window(m, n, DType::f32, Device::cuda());
      if (!tile_cuda::mma_store(config, a.to(Device::cuda()), b.to(Device::cuda()), gpu_c.view, blocks))
        GTEST_SKIP() << "skipped: this GPU does not run this pipeline shape (Hopper only)";
      const Tensor got = gpu_c.buffer.to(Device::cpu());
      const Tensor want_buffer = expected_window(gpu_c, want, m, n, DType::f32);
      EXPECT_TRUE(same_window(got, want_buffer, m, n)) << "GPU (C exact, nothing written outside it)";
    }
  }
  if (!gpu_here) GTEST_SKIP() << "skipped: no GPU (the host mode was checked)";
}

// Stages filled by halves (leave_unloaded): the copy engine's count of each stage still completes, and the
// consumers read only the tiles that were loaded. C exact as in StagedMma.
TEST(TileStagedGpu, StagesFilledByHalvesCompleteAndHoldWhatWasLoaded) {
  const bool gpu_here = cuda_available();
  for (auto [m, n, k, blocks] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{2 * 128 + 5, 128 + 12, 64 * 5 + 24, 2},
                                 {128, 128, 64, 132},
                                 {3 * 128 - 3, 2 * 128 + 4, 64 * 9, 132},
                                 {1, 4, 8, 1}}) {
    SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k) + ", at most " +
                 std::to_string(blocks) + " blocks");
    const auto [a, b, want] = stacked_product(m, n, k);
    Tensor host_c = poisoned({m, n}, DType::f32);
    ASSERT_TRUE(tile_host::half_loaded_mma(a, b, host_c, blocks));
    EXPECT_TRUE(all_close(floats(host_c), want, {0, 0})) << "host mode";
    if (!gpu_here) continue;
    Tensor gpu_c = poisoned({m, n}, DType::f32, Device::cuda());
    if (!tile_cuda::half_loaded_mma(a.to(Device::cuda()), b.to(Device::cuda()), gpu_c, blocks))
      GTEST_SKIP() << "skipped: not a Hopper GPU";
    EXPECT_TRUE(all_close(floats(gpu_c.to(Device::cpu())), want, {0, 0})) << "GPU";
  }
  if (!gpu_here) GTEST_SKIP() << "skipped: no GPU (the host mode was checked)";
}

// scale_rows_where's contract as the test kernels apply it: rows r with r % 32 < 8 (some of a warp's 16 rows,
// or none) of o [rows, dv] times 2 + the row's max of dots [rows, nk]; the other rows as they are.
std::vector<float> scaled_where(const std::vector<float>& o, const std::vector<float>& dots, int64_t rows, int64_t nk,
                                int64_t dv) {
  std::vector<float> out = o;
  for (int64_t r = 0; r < rows; ++r) {
    if (r % 32 >= 8) continue;
    float most = -INFINITY;
    for (int64_t n = 0; n < nk; ++n) most = std::max(most, dots[size_t(r * nk + n)]);
    for (int64_t j = 0; j < dv; ++j) out[size_t(r * dv + j)] *= most + 2.f;
  }
  return out;
}

// Sliced tiles against a plain computation of their contract (host/slices.h), exact for small integers: the
// host mode, and on the GPU the warp-level products from swizzled shared memory and the combinations through
// shared memory. 1, 13 and 16 query rows (the rest padding).
class SlicedTiles : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(TileStagedGpu, SlicedTiles, ::testing::Range(0, kNumSlicedConfigs));

TEST_P(SlicedTiles, ProductsAndCombinationsMatchTheirContract) {
  const bool gpu_here = cuda_available();
  const SlicedConfig& c = kSlicedConfigs[GetParam()];
  const int64_t S = 4 * c.consumers, R = 16, D = c.d, NK = c.nk, DV = c.dv;
  auto integers = [](int64_t rows, int64_t cols) {
    std::vector<float> v = floats(random_tensor({rows, cols}, DType::f32, Device::cpu(), -2.f, 3.f));
    for (float& x : v) x = std::floor(x);
    return v;
  };
  for (int64_t rows : {int64_t(1), int64_t(13), int64_t(16)}) {
    SCOPED_TRACE(std::string(c.why) + ", " + std::to_string(rows) + " query rows");
    const std::vector<float> qv = integers(rows, D), kv = integers(S * NK, D), vv = integers(S * NK, DV);
    // The contract, computed plainly.
    std::vector<float> dots(size_t(S * R * NK)), o(size_t(S * R * DV), 0.f), o_sum(size_t(R * DV), 0.f);
    std::vector<float> row_max(size_t(R), -INFINITY), row_sum(size_t(R), 0.f), max_repeated(size_t(S * R));
    for (int64_t r = 0; r < S * R; ++r)
      for (int64_t n = 0; n < NK; ++n) {
        float sum = 0.f;
        if (r % R < rows)
          for (int64_t d = 0; d < D; ++d) sum += qv[size_t((r % R) * D + d)] * kv[size_t(((r / R) * NK + n) * D + d)];
        dots[size_t(r * NK + n)] = sum;
      }
    const std::vector<float> probs = floats(from_floats(dots, {S * R, NK}, DType::bf16));  // rounded as cast<bf16>
    for (int64_t r = 0; r < S * R; ++r)
      for (int64_t n = 0; n < NK; ++n)
        for (int64_t j = 0; j < DV; ++j) o[size_t(r * DV + j)] += probs[size_t(r * NK + n)] * vv[size_t(((r / R) * NK + n) * DV + j)];
    for (int64_t r = 0; r < S * R; ++r)
      for (int64_t j = 0; j < DV; ++j) {
        const float x = o[size_t(r * DV + j)];
        o_sum[size_t((r % R) * DV + j)] += x;
        row_sum[size_t(r % R)] += x;
        row_max[size_t(r % R)] = std::max(row_max[size_t(r % R)], x);
      }
    for (int64_t r = 0; r < S * R; ++r) max_repeated[size_t(r)] = row_max[size_t(r % R)];
    const std::vector<float> o_scaled = scaled_where(o, dots, S * R, NK, DV);
    const std::vector<float>* want[] = {&dots, &o, &o_sum, &row_max, &row_sum, &max_repeated, &o_scaled};
    const std::vector<int64_t> shapes[] = {{S * R, NK}, {S * R, DV}, {R, DV}, {R, 1}, {R, 1}, {S * R, 1}, {S * R, DV}};
    const char* names[] = {"dots", "o", "o summed over slices", "row max over slices", "row sum over slices",
                           "row max repeated", "o scaled where rows are marked"};

    const Tensor q = from_floats(qv, {rows, D}, DType::bf16), k = from_floats(kv, {S * NK, D}, DType::bf16),
                 v = from_floats(vv, {S * NK, DV}, DType::bf16);
    for (Device dev : {Device::cpu(), Device::cuda()}) {
      if (dev.is_cuda() && !gpu_here) continue;
      std::vector<Tensor> out;
      for (const auto& shape : shapes) out.push_back(poisoned(shape, DType::f32, dev));
      const bool ran = dev.is_cpu() ? tile_host::sliced_products(GetParam(), q, k, v, out.data())
                                    : tile_cuda::sliced_products(GetParam(), q.to(dev), k.to(dev), v.to(dev), out.data());
      if (!ran) GTEST_SKIP() << "skipped: not a Hopper GPU";
      for (int i = 0; i < 7; ++i)
        EXPECT_TRUE(all_close(floats(out[size_t(i)].to(Device::cpu())), *want[i], {0, 0}))
            << names[i] << (dev.is_cpu() ? " (host mode)" : " (GPU)");
    }
  }
  if (!gpu_here) GTEST_SKIP() << "skipped: no GPU (the host mode was checked)";
}

// Consumers in column shares against a plain computation, exact for small integers: host mode, and on the GPU
// the shares' products (the left operand of the second exchanged through shared memory), row reductions
// across the shares and a row statistic broadcast over them.
class ColumnShares : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(TileStagedGpu, ColumnShares, ::testing::Range(0, kNumColumnSharesConfigs));

TEST_P(ColumnShares, ProductsAndRowReductionsMatchAPlainComputation) {
  const bool gpu_here = cuda_available();
  const ColumnSharesConfig& c = kColumnSharesConfigs[GetParam()];
  const int64_t M = 64, D = c.d, NK = c.nk, DV = c.dv;
  SCOPED_TRACE(c.why);
  auto integers = [](int64_t rows, int64_t cols) {
    std::vector<float> v = floats(random_tensor({rows, cols}, DType::f32, Device::cpu(), -2.f, 3.f));
    for (float& x : v) x = std::floor(x);
    return v;
  };
  const std::vector<float> qv = integers(M, D), kv = integers(NK, D), vv = integers(NK, DV);
  std::vector<float> dots(size_t(M * NK)), o(size_t(M * DV), 0.f), row_max(size_t(M), -INFINITY), row_sum(size_t(M), 0.f);
  std::vector<float> o_less_max(size_t(M * DV));
  for (int64_t r = 0; r < M; ++r)
    for (int64_t n = 0; n < NK; ++n) {
      float sum = 0.f;
      for (int64_t d = 0; d < D; ++d) sum += qv[size_t(r * D + d)] * kv[size_t(n * D + d)];
      dots[size_t(r * NK + n)] = sum;
      row_max[size_t(r)] = std::max(row_max[size_t(r)], sum);
    }
  const std::vector<float> probs = floats(from_floats(dots, {M, NK}, DType::bf16));  // rounded as cast<bf16>
  for (int64_t r = 0; r < M; ++r) {
    float most = -INFINITY;
    for (int64_t j = 0; j < DV; ++j) {
      float sum = 0.f;
      for (int64_t n = 0; n < NK; ++n) sum += probs[size_t(r * NK + n)] * vv[size_t(n * DV + j)];
      o[size_t(r * DV + j)] = sum;
      row_sum[size_t(r)] += sum;
      most = std::max(most, sum);
    }
    for (int64_t j = 0; j < DV; ++j) o_less_max[size_t(r * DV + j)] = o[size_t(r * DV + j)] - most;
  }
  const std::vector<float> o_scaled = scaled_where(o, dots, M, NK, DV);
  std::vector<float> running(static_cast<size_t>(M));
  for (int64_t r = 0; r < M; ++r) running[size_t(r)] = row_sum[size_t(r)] * 0.5f + row_sum[size_t(r)];
  const std::vector<float>* want[] = {&dots, &o, &row_max, &row_sum, &o_less_max, &o_scaled, &running};
  const std::vector<int64_t> shapes[] = {{M, NK}, {M, DV}, {M, 1}, {M, 1}, {M, DV}, {M, DV}, {M, 1}};
  const char* names[] = {"dots", "o", "row max of dots", "row sum of o", "o less its row max",
                         "o scaled where rows are marked", "running row sums of o (1.5 row sums)"};
  const Tensor q = from_floats(qv, {M, D}, DType::bf16), k = from_floats(kv, {NK, D}, DType::bf16),
               v = from_floats(vv, {NK, DV}, DType::bf16);
  for (Device dev : {Device::cpu(), Device::cuda()}) {
    if (dev.is_cuda() && !gpu_here) continue;
    std::vector<Tensor> out;
    for (const auto& shape : shapes) out.push_back(poisoned(shape, DType::f32, dev));
    const bool ran = dev.is_cpu() ? tile_host::column_shares_products(GetParam(), q, k, v, out.data())
                                  : tile_cuda::column_shares_products(GetParam(), q.to(dev), k.to(dev), v.to(dev), out.data());
    if (!ran) GTEST_SKIP() << "skipped: not a Hopper GPU";
    for (int i = 0; i < 7; ++i)
      EXPECT_TRUE(all_close(floats(out[size_t(i)].to(Device::cpu())), *want[i], {0, 0}))
          << names[i] << (dev.is_cpu() ? " (host mode)" : " (GPU)");
  }
  if (!gpu_here) GTEST_SKIP() << "skipped: no GPU (the host mode was checked)";
}

class Solo : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(TileStagedGpu, Solo, ::testing::Range(0, kNumSoloConfigs));

// One consumer's scores and row maxima handed to both column shares, stage after stage (tile/solo.h).
TEST_P(Solo, HandOutsReachEveryConsumer) {
  const bool gpu_here = cuda_available();
  const SoloConfig& c = kSoloConfigs[GetParam()];
  const int64_t M = 64, D = c.d, NK = c.nk, DV = c.dv, tiles = c.tiles;
  SCOPED_TRACE(c.why);
  auto integers = [](int64_t rows, int64_t cols) {
    std::vector<float> v = floats(random_tensor({rows, cols}, DType::f32, Device::cpu(), -2.f, 3.f));
    for (float& x : v) x = std::floor(x);
    return v;
  };
  const std::vector<float> qv = integers(M, D), kv = integers(tiles * NK, D), vv = integers(tiles * NK, DV);
  std::vector<float> o(size_t(M * DV), 0.f), maxima(size_t(M), 0.f);
  for (int64_t t = 0; t < tiles; ++t) {
    std::vector<float> dots(size_t(M * NK));
    for (int64_t r = 0; r < M; ++r)
      for (int64_t n = 0; n < NK; ++n) {
        float sum = 0.f;
        for (int64_t d = 0; d < D; ++d) sum += qv[size_t(r * D + d)] * kv[size_t((t * NK + n) * D + d)];
        dots[size_t(r * NK + n)] = sum;
      }
    const std::vector<float> probs = floats(from_floats(dots, {M, NK}, DType::bf16));  // rounded as cast<bf16>
    for (int64_t r = 0; r < M; ++r) {
      const float top = *std::max_element(dots.begin() + r * NK, dots.begin() + (r + 1) * NK);
      maxima[size_t(r)] += top;
      for (int64_t j = 0; j < DV; ++j) {
        float sum = top > 0.f ? o[size_t(r * DV + j)] * 0.5f : o[size_t(r * DV + j)];
        for (int64_t n = 0; n < NK; ++n) sum += probs[size_t(r * NK + n)] * vv[size_t((t * NK + n) * DV + j)];
        o[size_t(r * DV + j)] = sum;
      }
    }
  }
  const Tensor q = from_floats(qv, {M, D}, DType::bf16), k = from_floats(kv, {tiles * NK, D}, DType::bf16),
               v = from_floats(vv, {tiles * NK, DV}, DType::bf16);
  for (Device dev : {Device::cpu(), Device::cuda()}) {
    if (dev.is_cuda() && !gpu_here) continue;
    const Tensor out = poisoned({M, DV}, DType::f32, dev), out_maxima = poisoned({M, 1}, DType::f32, dev);
    const bool ran = dev.is_cpu() ? tile_host::solo_hand_out(GetParam(), q, k, v, out, out_maxima)
                                  : tile_cuda::solo_hand_out(GetParam(), q.to(dev), k.to(dev), v.to(dev), out, out_maxima);
    if (!ran) GTEST_SKIP() << "skipped: not a Hopper GPU";
    EXPECT_TRUE(all_close(floats(out.to(Device::cpu())), o, {0, 0})) << "o" << (dev.is_cpu() ? " (host mode)" : " (GPU)");
    EXPECT_TRUE(all_close(floats(out_maxima.to(Device::cpu())), maxima, {0, 0}))
        << "sum of the handed row maxima" << (dev.is_cpu() ? " (host mode)" : " (GPU)");
  }
  if (!gpu_here) GTEST_SKIP() << "skipped: no GPU (the host mode was checked)";
}

// Tiles gathered from boxes of scattered rows, as decode attention reads a paged cache: load_row_boxes_async
// (one configuration load_rows_async box by box, two load_row_boxes_by_threads) against the sources read
// directly, exact, zeros past the plane's last row and for a plane outside the stack; on the GPU (the copy
// engine's panels, or the producer's threads) and in host mode.
class RowBoxes : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(TileStagedGpu, RowBoxes, ::testing::Range(0, kNumRowBoxConfigs));

TEST_P(RowBoxes, FillsHoldTheirBoxesRowsExactly) {
  const bool gpu_here = cuda_available();
  const RowBoxConfig& s = kRowBoxConfigs[GetParam()];
  constexpr int64_t planes = 3, rows = 101, fills = 5, boxes = 4, tile_rows = 64;
  const Tensor a = random_tensor({planes * rows, s.ca}, DType::bf16, Device::cpu(), -4.f, 4.f);
  const Tensor b = random_tensor({planes * rows, s.cb}, DType::bf16, Device::cpu(), -4.f, 4.f);
  const auto a_values = floats(a), b_values = floats(b);
  std::vector<float> eye(tile_rows * tile_rows, 0.f);
  for (int64_t i = 0; i < tile_rows; ++i) eye[size_t(i * tile_rows + i)] = 1.f;
  const Tensor eye_host = from_floats(eye, {tile_rows, tile_rows}, DType::f32);
  std::mt19937 rng(std::random_device{}());
  for (const int64_t plane : {int64_t(0), int64_t(2), int64_t(3)}) {
    // Any first row from 0 to past the plane's end (boxes partly or wholly outside it), repeats allowed.
    std::vector<float> starts(fills * boxes);
    for (float& r : starts) r = float(std::uniform_int_distribution<int>(0, int(rows) + 4)(rng));
    starts[0] = 0.f, starts[1] = float(rows - 16), starts[2] = float(rows - 5), starts[3] = 0.f;
    const Tensor box_rows = from_floats(starts, {fills, boxes}, DType::i32);
    SCOPED_TRACE(std::string(s.why) + ", plane " + std::to_string(plane) + " of " + std::to_string(planes));

    auto expected = [&](const std::vector<float>& src, int64_t cols) {
      std::vector<float> want(size_t(fills * tile_rows * cols));
      for (int64_t f = 0; f < fills; ++f)
        for (int64_t r = 0; r < tile_rows; ++r) {
          const int64_t row = int64_t(starts[size_t(f * boxes + r / 16)]) + r % 16;
          for (int64_t c = 0; c < cols; ++c)
            want[size_t((f * tile_rows + r) * cols + c)] = plane < planes && row < rows ? src[size_t((plane * rows + row) * cols + c)] : 0.f;
        }
      return want;
    };
    const auto want_a = expected(a_values, s.ca), want_b = expected(b_values, s.cb);

    Tensor host_a = poisoned({fills * tile_rows, s.ca}, DType::f32), host_b = poisoned({fills * tile_rows, s.cb}, DType::f32);
    ASSERT_TRUE(tile_host::row_box_fills(GetParam(), a, b, planes, plane, box_rows, eye_host, host_a, host_b));
    EXPECT_TRUE(all_close(floats(host_a), want_a, {0, 0})) << "host mode, first tile";
    EXPECT_TRUE(all_close(floats(host_b), want_b, {0, 0})) << "host mode, second tile";

    if (!gpu_here) continue;
    const Device gpu = Device::cuda();
    Tensor gpu_a = poisoned({fills * tile_rows, s.ca}, DType::f32, gpu), gpu_b = poisoned({fills * tile_rows, s.cb}, DType::f32, gpu);
    if (!tile_cuda::row_box_fills(GetParam(), a.to(gpu), b.to(gpu), planes, plane, box_rows.to(gpu), eye_host.to(gpu), gpu_a, gpu_b))
      GTEST_SKIP() << "skipped: not a Hopper GPU";
    EXPECT_TRUE(all_close(floats(gpu_a.to(Device::cpu())), want_a, {0, 0})) << "GPU, first tile";
    EXPECT_TRUE(all_close(floats(gpu_b.to(Device::cpu())), want_b, {0, 0})) << "GPU, second tile";
  }
  if (!gpu_here) GTEST_SKIP() << "skipped: no GPU (the host mode was checked)";
}

}  // namespace

}  // namespace tessera::tile_staged_tests
#endif
