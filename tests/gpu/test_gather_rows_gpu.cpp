// gather_rows / scatter_rows on CUDA give the host's bits: strided and unaligned source views, indices that
// are negative or past the view, column windows that cross the view's last column, every tile layout.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/test_util.h"
#include "tessera/runtime/tensor.h"

namespace tessera::gather_rows_tests {
#define TESSERA_GATHER_RUNNER                                                                                   \
  void gather_scatter(int layout, const Tensor& src, const Tensor& dst, const Tensor& gather_idx, const Tensor& scatter_idx, \
                      const Tensor& tile_out, int64_t col0);                                                          \
  void rows_of_rank3(int layout, const Tensor& src, const Tensor& dst, const Tensor& tile_out, int64_t row0, int64_t col0); \
  bool accumulator_rows_of_rank3(int layout, const Tensor& src, const Tensor& dst, const Tensor& tile_out, int64_t row0,   \
                                 int64_t col0);                                                                           \
  bool accumulator_fragments(int cols, const Tensor& src, const Tensor& scratch, const Tensor& tile_out, int64_t row0,     \
                             int64_t col0);
namespace tile_host { TESSERA_GATHER_RUNNER }
namespace tile_cuda { TESSERA_GATHER_RUNNER }
#undef TESSERA_GATHER_RUNNER
}  // namespace tessera::gather_rows_tests

#if TESSERA_WITH_CUDA
#include "gather_rows_kernels.h"

namespace tessera::gather_rows_tests {
namespace {
using namespace tessera::testing;

// Rank-3 view [d0, d1, cols] into a larger buffer: dim 1 padded by 3 rows, rows padded by 5 elements, starting
// one element in (so 16-byte chunks are unaligned unless the row stride restores alignment); `aligned`: rows
// padded to a multiple of 8 elements and starting at the buffer's start, so every row is 16-byte aligned.
struct Strided {
  Tensor buffer, view;
};
Strided strided(int64_t d0, int64_t d1, int64_t cols, DType dt, Device dev, bool poison_it, bool aligned = false) {
  const int64_t row = aligned ? (cols + 5 + 7) / 8 * 8 : cols + 5, plane = (d1 + 3) * row, skip = aligned ? 0 : 1;
  Strided s;
  s.buffer = poison_it ? poisoned({d0 * plane + 1}, dt, dev) : random_tensor({d0 * plane + 1}, dt, dev, -4, 4);
  char* base = static_cast<char*>(s.buffer.data()) + skip * dtype_size(dt);
  s.view = Tensor::view(base, {d0, d1, cols}, dt, dev, {plane, row, 1});
  return s;
}

TEST(GatherRowsGpu, MatchesHostBitForBit) {
  TESSERA_REQUIRE_GPU();
  for (int layout = 0; layout < kNumGatherLayouts; ++layout) {
    const GatherLayout& l = kGatherLayouts[layout];
    const DType dt = l.bf16 ? DType::bf16 : DType::f32;
    const int64_t d0 = 5, d1 = 7, cols = l.cols + 3, n = d0 * d1;
    for (bool aligned : {false, true})
    for (int64_t col0 : {int64_t(0), int64_t(5), int64_t(-2)}) {
      SCOPED_TRACE(std::string(l.why) + (aligned ? ", aligned" : ", unaligned") + ", col0 " + std::to_string(col0));
      // Indices: a permutation-like spread, with -1, a row past the end and a very negative one mixed in.
      std::vector<float> gi(size_t(l.rows)), si(size_t(l.rows));
      for (int r = 0; r < l.rows; ++r) {
        gi[size_t(r)] = float((r * 13 + 4) % (n + 2)) - (r % 9 == 4 ? 100.f : 0.f);
        si[size_t(r)] = r % 7 == 3 ? -1.f : float((r * 17 + 1) % n);
      }
      // Scatter targets must be distinct to be defined: keep the first occurrence of each.
      for (int r = 0; r < l.rows; ++r)
        for (int q = 0; q < r; ++q)
          if (si[size_t(q)] == si[size_t(r)]) si[size_t(r)] = -1.f;
      Tensor gidx = from_floats(gi, {l.rows, 1}, DType::i32), sidx = from_floats(si, {l.rows, 1}, DType::i32);
      Strided src = strided(d0, d1, cols, dt, Device::cpu(), false, aligned);
      Strided dst_h = strided(d0, d1, cols, dt, Device::cpu(), true, aligned);
      Tensor out_h = poisoned({l.rows, l.cols}, dt);
      tile_host::gather_scatter(layout, src.view, dst_h.view, gidx, sidx, out_h, col0);

      Tensor src_buf_g = src.buffer.to(Device::cuda());
      Tensor src_g = Tensor::view(static_cast<char*>(src_buf_g.data()) + (aligned ? 0 : dtype_size(dt)), src.view.shape(), dt,
                                  Device::cuda(), src.view.strides());
      Strided dst_g = strided(d0, d1, cols, dt, Device::cuda(), true, aligned);
      Tensor out_g = poisoned({l.rows, l.cols}, dt, Device::cuda());
      tile_cuda::gather_scatter(layout, src_g, dst_g.view, gidx.to(Device::cuda()), sidx.to(Device::cuda()), out_g, col0);
      synchronize(Device::cuda());
      EXPECT_TRUE(all_equal(out_g.to(Device::cpu()), out_h));
      EXPECT_TRUE(all_equal(dst_g.buffer.to(Device::cpu()), dst_h.buffer));
    }
  }
}

// load_like / store of a rank-3 view seen as rows (the CUDA side splits each row into (plane, row) with a
// division by a precomputed reciprocal): planes of 1, 3 and 7 rows, tiles that start before the first row, cross
// planes, or end past the last row, column windows that cross the last column.
TEST(GatherRowsGpu, RowsOfRankThreeViewsMatchHostBitForBit) {
  TESSERA_REQUIRE_GPU();
  for (int layout = 0; layout < kNumGatherLayouts; ++layout) {
    const GatherLayout& l = kGatherLayouts[layout];
    const DType dt = l.bf16 ? DType::bf16 : DType::f32;
    for (int64_t d1 : {int64_t(1), int64_t(3), int64_t(7)}) {
      const int64_t d0 = 9, cols = l.cols + 3, n = d0 * d1;
      for (int64_t row0 : {int64_t(-5), int64_t(0), int64_t(2), n - 3, n + 2})
        for (int64_t col0 : {int64_t(0), int64_t(-2), int64_t(5)}) {
          SCOPED_TRACE(std::string(l.why) + ", planes of " + std::to_string(d1) + " rows, at (" + std::to_string(row0) +
                       ", " + std::to_string(col0) + ")");
          Strided src = strided(d0, d1, cols, dt, Device::cpu(), false);
          Strided dst_h = strided(d0, d1, cols, dt, Device::cpu(), true);
          Tensor out_h = poisoned({l.rows, l.cols}, dt);
          tile_host::rows_of_rank3(layout, src.view, dst_h.view, out_h, row0, col0);

          Tensor src_buf_g = src.buffer.to(Device::cuda());
          Tensor src_g = Tensor::view(static_cast<char*>(src_buf_g.data()) + dtype_size(dt), src.view.shape(), dt,
                                      Device::cuda(), src.view.strides());
          Strided dst_g = strided(d0, d1, cols, dt, Device::cuda(), true);
          Tensor out_g = poisoned({l.rows, l.cols}, dt, Device::cuda());
          tile_cuda::rows_of_rank3(layout, src_g, dst_g.view, out_g, row0, col0);
          synchronize(Device::cuda());
          EXPECT_TRUE(all_equal(out_g.to(Device::cpu()), out_h));
          EXPECT_TRUE(all_equal(dst_g.buffer.to(Device::cpu()), dst_h.buffer));
        }
    }
  }
}

TEST(GatherRowsGpu, AccumulatorTilesOnRankThreeViewsMatchHostBitForBit) {
  TESSERA_REQUIRE_GPU();
  for (int layout = 0; layout < kNumAccumulatorLayouts; ++layout) {
    const AccumulatorLayout& l = kAccumulatorLayouts[layout];
    const DType dt = l.bf16 ? DType::bf16 : DType::f32;
    for (bool aligned : {true, false})
      for (int64_t d1 : {int64_t(1), int64_t(3), int64_t(7), int64_t(37)}) {
        const int64_t d0 = 9, cols = l.cols + 3, n = d0 * d1;
        for (int64_t row0 : {int64_t(-5), int64_t(0), int64_t(2), n / 2, n - 3, n + 2})
          for (int64_t col0 : {int64_t(0), int64_t(-2), int64_t(2), int64_t(5)}) {
            SCOPED_TRACE(std::string(l.why) + (aligned ? ", aligned" : ", unaligned") + ", planes of " + std::to_string(d1) +
                         " rows, at (" + std::to_string(row0) + ", " + std::to_string(col0) + ")");
            Strided src = strided(d0, d1, cols, dt, Device::cpu(), false, aligned);
            Strided dst_h = strided(d0, d1, cols, dt, Device::cpu(), true, aligned);
            Tensor out_h = poisoned({64, l.cols}, dt);
            ASSERT_TRUE(tile_host::accumulator_rows_of_rank3(layout, src.view, dst_h.view, out_h, row0, col0));

            Tensor src_buf_g = src.buffer.to(Device::cuda());
            const int64_t skip = aligned ? 0 : 1;
            Tensor src_g = Tensor::view(static_cast<char*>(src_buf_g.data()) + skip * dtype_size(dt), src.view.shape(), dt,
                                        Device::cuda(), src.view.strides());
            Strided dst_g = strided(d0, d1, cols, dt, Device::cuda(), true, aligned);
            Tensor out_g = poisoned({64, l.cols}, dt, Device::cuda());
            if (!tile_cuda::accumulator_rows_of_rank3(layout, src_g, dst_g.view, out_g, row0, col0))
              GTEST_SKIP() << "the staged pipeline needs a Hopper GPU";
            synchronize(Device::cuda());
            EXPECT_TRUE(all_equal(out_g.to(Device::cpu()), out_h));
            EXPECT_TRUE(all_equal(dst_g.buffer.to(Device::cpu()), dst_h.buffer));
          }
      }
  }
}

// A tile kept in a scratch slot comes back as it went (the slot's order is the backend's own, so only the
// round trip and the untouched neighbours are compared, not the scratch itself).
TEST(GatherRowsGpu, AccumulatorFragmentsRoundTripThroughScratchSlots) {
  TESSERA_REQUIRE_GPU();
  for (int cols : {64, 128})
    for (int64_t row0 : {int64_t(0), int64_t(-3), int64_t(40)}) {
      SCOPED_TRACE("64 x " + std::to_string(cols) + " at row " + std::to_string(row0));
      Strided src = strided(2, 53, cols + 3, DType::f32, Device::cpu(), false);
      const int64_t slot = 64 * cols;
      Tensor scratch_h = poisoned({3 * slot}, DType::f32);
      Tensor out_h = poisoned({64, cols}, DType::f32);
      ASSERT_TRUE(tile_host::accumulator_fragments(cols, src.view, scratch_h, out_h, row0, 1));

      Tensor src_buf_g = src.buffer.to(Device::cuda());
      Tensor src_g = Tensor::view(static_cast<char*>(src_buf_g.data()) + sizeof(float), src.view.shape(), DType::f32,
                                  Device::cuda(), src.view.strides());
      Tensor scratch_g = poisoned({3 * slot}, DType::f32, Device::cuda());
      Tensor out_g = poisoned({64, cols}, DType::f32, Device::cuda());
      if (!tile_cuda::accumulator_fragments(cols, src_g, scratch_g, out_g, row0, 1))
        GTEST_SKIP() << "the staged pipeline needs a Hopper GPU";
      synchronize(Device::cuda());
      EXPECT_TRUE(all_equal(out_g.to(Device::cpu()), out_h));
      const Tensor scratch_back = scratch_g.to(Device::cpu());
      auto* floats = static_cast<float*>(scratch_back.data());
      const Tensor poison = poisoned({slot}, DType::f32);
      EXPECT_TRUE(all_equal(Tensor::view(floats, {slot}, DType::f32), poison));
      EXPECT_TRUE(all_equal(Tensor::view(floats + 2 * slot, {slot}, DType::f32), poison));
    }
}

}  // namespace
}  // namespace tessera::gather_rows_tests
#endif
