// The GPU result of tile operations equals the host result (the specification), bit for bit: reductions and
// argmax over rows mixing NaN, -inf and ties, int tiles, broadcasting with the vector on either side, and
// loads/stores through unaligned, column-strided views at every edge. Complements test_tile_parity_gpu.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "tile_op_runners.h"

#if TESSERA_WITH_CUDA
namespace tessera::tile_op_tests {
namespace {
using namespace tessera::testing;

bool same_value(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  uint32_t ua, ub;
  std::memcpy(&ua, &a, 4);
  std::memcpy(&ub, &b, 4);
  return ua == ub;  // also tells 0 from -0
}

// Compares an [rows, cols] block of two row-major float arrays, naming the op and the first mismatch.
::testing::AssertionResult same_block(const std::vector<float>& gpu, const std::vector<float>& host, int64_t width,
                                      int64_t r0, int64_t c0, int64_t rows, int64_t cols, const std::string& what) {
  int bad = 0;
  std::string first;
  for (int64_t r = r0; r < r0 + rows; ++r)
    for (int64_t c = c0; c < c0 + cols; ++c) {
      const float g = gpu[size_t(r * width + c)], h = host[size_t(r * width + c)];
      if (!same_value(g, h)) {
        if (!bad++) {
          std::ostringstream s;
          s << "(" << r - r0 << ", " << c - c0 << "): gpu " << g << ", host " << h;
          first = s.str();
        }
      }
    }
  if (!bad) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << bad << " elements differ, first at " << first;
}

std::string layout_name(const ReduceLayout& l) {
  return std::to_string(l.rows) + "x" + std::to_string(l.cols) + " tile, " + std::to_string(l.threads) +
         " threads (" + l.why + ")";
}

// Row r of the input follows pattern (r + variant) % 6: all -inf; NaN then -inf; all NaN; small integers
// with scattered NaN; small integers (ties everywhere); small integers with one -inf.
Tensor mixed_input(int64_t rows, int64_t cols, int variant) {
  Tensor t = Tensor::empty({rows, cols}, DType::f32);
  float* x = t.data_as<float>();
  std::uniform_int_distribution<int> small(-3, 3), pick(0, int(cols) - 1);
  auto& g = rng();
  const float nan = std::nanf(""), inf = INFINITY;
  for (int64_t r = 0; r < rows; ++r) {
    float* row = x + r * cols;
    const int pattern = int((r + variant) % 6);
    for (int64_t c = 0; c < cols; ++c) row[c] = float(small(g));
    switch (pattern) {
      case 0: for (int64_t c = 0; c < cols; ++c) row[c] = -inf; break;
      case 1: for (int64_t c = 0; c < cols; ++c) row[c] = c < cols / 2 ? nan : -inf; break;
      case 2: for (int64_t c = 0; c < cols; ++c) row[c] = nan; break;
      case 3: for (int k = 0; k < 1 + int(cols / 8); ++k) row[pick(g)] = nan; break;
      case 5: row[pick(g)] = -inf; break;
      default: break;
    }
  }
  return t;
}

const char* const kRowOutputs[] = {"row_max", "row_min", "row_argmax", "row_argmax(-x)", "row_sum(int)",
                                   "row_max(int)", "row_min(int)", "row_argmax(int)", "row_sum(float of int)",
                                   "row_sum(x*x) - row_max (two row reductions combined)"};
const char* const kColOutputs[] = {"col_max", "col_min", "col_argmax", "col_argmax(-x)", "col_sum(int)",
                                   "col_max(int)", "col_min(int)", "col_argmax(float of int)"};
const char* const kFullOutputs[] = {"(1,C) - (R,C): row vector on the left", "(R,C) * (1,C)",
                                    "(R,1) - (R,C): column vector on the left", "(R,C) + (R,1)",
                                    "(R,1) op (1,C) outer broadcast", "where(mask, (1,C), (R,1)) + int (R,C) > (1,C)"};

TEST(TileOpsGpu, ReductionsArgmaxAndBroadcastsMatchHostBitForBit) {
  TESSERA_REQUIRE_GPU();
  for (int i = 0; i < kNumReduceLayouts; ++i) {
    const ReduceLayout& l = kReduceLayouts[i];
    for (int variant = 0; variant < 6; ++variant) {
      for (bool partial : {false, true}) {
        // A partial view leaves the last row and some columns to the -inf padding.
        const int64_t rows = partial && l.rows > 1 ? l.rows - 1 : l.rows;
        const int64_t cols = partial && l.cols > 4 ? l.cols - 3 : l.cols;
        const std::string where = layout_name(l) + ", input variant " + std::to_string(variant) +
                                  (partial ? ", view " + std::to_string(rows) + "x" + std::to_string(cols) : "");
        Tensor x = mixed_input(rows, cols, variant);
        Tensor hr = poisoned({l.rows, 10}, DType::f32), hc = poisoned({8, l.cols}, DType::f32);
        Tensor hf = poisoned({6 * l.rows, l.cols}, DType::f32);
        Tensor gr = poisoned({l.rows, 10}, DType::f32, Device::cuda()), gc = poisoned({8, l.cols}, DType::f32, Device::cuda());
        Tensor gf = poisoned({6 * l.rows, l.cols}, DType::f32, Device::cuda());
        tile_host::reduce_mixed(i, x, hr, hc, hf);
        tile_cuda::reduce_mixed(i, x.to(Device::cuda()), gr, gc, gf);
        synchronize(Device::cuda());
        const auto r_h = floats(hr), r_g = floats(gr), c_h = floats(hc), c_g = floats(gc), f_h = floats(hf), f_g = floats(gf);
        for (int k = 0; k < 10; ++k)
          EXPECT_TRUE(same_block(r_g, r_h, 10, 0, k, l.rows, 1, std::string(kRowOutputs[k]) + " on " + where));
        for (int k = 0; k < 8; ++k)
          EXPECT_TRUE(same_block(c_g, c_h, l.cols, k, 0, 1, l.cols, std::string(kColOutputs[k]) + " on " + where));
        for (int k = 0; k < 6; ++k)
          EXPECT_TRUE(same_block(f_g, f_h, l.cols, int64_t(k) * l.rows, 0, l.rows, l.cols,
                                 std::string(kFullOutputs[k]) + " on " + where));
        if (::testing::Test::HasFailure()) return;  // one failing configuration is enough to read
      }
    }
  }
}

// Distinct small integers, exact in bf16 and f16.
Tensor pattern_tensor(int64_t rows, int64_t cols, DType dtype) {
  std::vector<float> v(size_t(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) v[size_t(r * cols + c)] = float((r * 37 + c * 11) % 251 - 125);
  return from_floats(v, {rows, cols}, dtype);
}

TEST(TileOpsGpu, LoadsAndStoresAtEdgesThroughUnalignedStridedViews) {
  TESSERA_REQUIRE_GPU();
  struct Views { int64_t src_offset, src_stride, dst_offset, dst_stride; const char* why; };
  const Views views[] = {
      {0, 1, 0, 1, "aligned, unit stride (vector path inside, element path at edges)"},
      {1, 1, 3, 1, "base pointers 1 and 3 elements past alignment"},
      {0, 2, 1, 1, "source column stride 2"},
      {5, 1, 0, 3, "unaligned source, destination column stride 3"},
      {3, 2, 2, 2, "both strided and unaligned"},
  };
  for (int li = 0; li < kNumCopyLayouts; ++li) {
    const CopyLayout& l = kCopyLayouts[li];
    for (const Views& v : views) {
      for (DType dtype : {DType::f32, DType::bf16, DType::f16}) {
        CopyCase c{};
        c.layout = li;
        c.grid = 3;
        c.step_r = l.rows + 1;
        c.step_c = l.cols + 3;
        c.src_offset = v.src_offset; c.src_col_stride = v.src_stride;
        c.src_rows = 2 * c.step_r + l.rows / 4 + 1;
        c.src_cols = 2 * c.step_c + l.cols / 4 + 1;
        c.dst_offset = v.dst_offset; c.dst_col_stride = v.dst_stride;
        c.dst_rows = 3 * (l.rows + 2) - 3;
        c.dst_cols = 3 * (l.cols + 2) - 5;
        c.dr = -1;
        c.dc = -2;
        const int64_t src_width = c.src_offset + (c.src_cols - 1) * c.src_col_stride + 1 + 7;
        const int64_t dst_width = c.dst_offset + (c.dst_cols - 1) * c.dst_col_stride + 1 + 5;
        Tensor src = pattern_tensor(c.src_rows + 1, src_width, dtype);
        Tensor host_dst = poisoned({c.dst_rows + 2, dst_width}, dtype);
        Tensor gpu_dst = poisoned({c.dst_rows + 2, dst_width}, dtype, Device::cuda());
        tile_host::edge_copy(c, src, host_dst);
        tile_cuda::edge_copy(c, src.to(Device::cuda()), gpu_dst);
        synchronize(Device::cuda());
        const std::string what = "load/store of " + std::string(dtype_name(dtype)) + " " + std::to_string(l.rows) + "x" +
                                 std::to_string(l.cols) + " tiles, " + std::to_string(l.threads) + " threads (" + l.why +
                                 "), " + v.why;
        // Bytes, not floats: elements never written must keep the poison in both.
        EXPECT_TRUE(all_equal(gpu_dst.to(Device::cpu()), host_dst)) << what;
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

// Tiles wholly inside 16-byte-aligned views with row strides a multiple of 16 elements: the middle block's
// load and store take the one-check vector path (the others cross edges and take the element path), and
// both must match the host bit for bit.
TEST(TileOpsGpu, LoadsAndStoresOfAlignedInteriorTiles) {
  TESSERA_REQUIRE_GPU();
  const auto round16 = [](int64_t n) { return (n + 15) / 16 * 16; };
  for (int li = 0; li < kNumCopyLayouts; ++li) {
    const CopyLayout& l = kCopyLayouts[li];
    for (DType dtype : {DType::f32, DType::bf16, DType::f16}) {
      CopyCase c{};
      c.layout = li;
      c.grid = 3;
      c.step_r = l.rows + 1;
      c.step_c = l.cols / 2 + 8;  // block column 1 loads from column 8: aligned for every chunk width
      c.src_offset = 0; c.src_col_stride = 1;
      c.src_rows = 2 * c.step_r + l.rows / 4 + 1;
      c.src_cols = 2 * c.step_c + l.cols / 2 + 1;
      c.dst_offset = 0; c.dst_col_stride = 1;
      c.dst_rows = 3 * (l.rows + 2) - 3;
      c.dst_cols = 3 * (l.cols + 2) - 5;
      c.dr = -1;
      c.dc = -2;  // block column 1 stores at column cols: aligned
      Tensor src = pattern_tensor(c.src_rows + 1, round16(c.src_cols), dtype);
      Tensor host_dst = poisoned({c.dst_rows + 2, round16(c.dst_cols)}, dtype);
      Tensor gpu_dst = poisoned({c.dst_rows + 2, round16(c.dst_cols)}, dtype, Device::cuda());
      tile_host::edge_copy(c, src, host_dst);
      tile_cuda::edge_copy(c, src.to(Device::cuda()), gpu_dst);
      synchronize(Device::cuda());
      EXPECT_TRUE(all_equal(gpu_dst.to(Device::cpu()), host_dst))
          << "aligned interior load/store of " << dtype_name(dtype) << " " << l.rows << "x" << l.cols << " tiles, "
          << l.threads << " threads (" << l.why << ")";
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// The host result itself is checked against the definition, so a bug shared by both backends is caught too.
TEST(TileOpsGpu, HostEdgeCopyFollowsTheDefinition) {
  const CopyLayout& l = kCopyLayouts[0];
  CopyCase c{0, 1, 2, 0, 0, 0, 1, 0, 0, 3, l.rows + 1, l.cols + 3, -1, -2};
  c.src_rows = 2 * c.step_r + 3;
  c.src_cols = 2 * c.step_c + 5;
  c.dst_rows = 3 * (l.rows + 2) - 3;
  c.dst_cols = 3 * (l.cols + 2) - 5;
  const int64_t src_width = 1 + (c.src_cols - 1) * 2 + 1, dst_width = c.dst_cols + 1;
  Tensor src = pattern_tensor(c.src_rows, src_width, DType::f32);
  Tensor dst = Tensor::empty({c.dst_rows, dst_width}, DType::f32);
  for (int64_t i = 0; i < dst.numel(); ++i) dst.data_as<float>()[i] = 999.f;
  tile_host::edge_copy(c, src, dst);
  const float* s = src.data_as<float>();
  const float* d = dst.data_as<float>();
  std::vector<float> want(size_t(dst.numel()), 999.f);
  for (int64_t bi = 0; bi < c.grid; ++bi)
    for (int64_t bj = 0; bj < c.grid; ++bj)
      for (int r = 0; r < l.rows; ++r)
        for (int k = 0; k < l.cols; ++k) {
          const int64_t sr = bi * c.step_r - l.rows / 2 + r, sc = bj * c.step_c - l.cols / 2 + k;
          const int64_t dr = bi * (l.rows + 2) + c.dr + r, dc = bj * (l.cols + 2) + c.dc + k;
          if (dr < 0 || dr >= c.dst_rows || dc < 0 || dc >= c.dst_cols) continue;
          const bool in = sr >= 0 && sr < c.src_rows && sc >= 0 && sc < c.src_cols;
          want[size_t(dr * dst_width + dc)] = in ? s[sr * src_width + 1 + sc * 2] : -3.f;
        }
  for (int64_t i = 0; i < dst.numel(); ++i) ASSERT_EQ(d[i], want[size_t(i)]) << "element " << i / dst_width << "," << i % dst_width;
}

}  // namespace
}  // namespace tessera::tile_op_tests
#endif  // TESSERA_WITH_CUDA
