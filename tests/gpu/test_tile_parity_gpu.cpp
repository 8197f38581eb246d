// The GPU result of every tile operation equals its host result (the specification), over every layout
// situation of tile/cuda/layout.h. Sums are checked bit-exactly on integer-valued data; transcendental
// functions within a few ulps.
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "tile_parity.h"

#if TESSERA_WITH_CUDA
namespace tessera::tile_tests {
namespace {
using namespace tessera::testing;

Tensor gpu(const Tensor& t) { return t.to(Device::cuda()); }

std::string layout_name(int i) {
  const auto& l = kLayouts[i];
  return std::to_string(l.rows) + "x" + std::to_string(l.cols) + " tile, " + std::to_string(l.threads) + " threads (" + l.why + ")";
}

Tensor random_small_ints(const Shape& shape, int lo, int hi) {
  Tensor t = random_tensor(shape, DType::f32, Device::cpu(), float(lo), float(hi + 1));
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = std::floor(t.data_as<float>()[i]);
  return t;
}

TEST(TileParityGpu, ElementwiseBroadcastAndCasts) {
  TESSERA_REQUIRE_GPU();
  for (int i = 0; i < kNumLayouts; ++i) {
    SCOPED_TRACE(layout_name(i));
    const auto& l = kLayouts[i];
    Tensor x = random_tensor({l.rows, l.cols}, DType::f32), y = random_tensor({l.rows, l.cols}, DType::f32);
    const Shape out_shape{kElementwiseOutputs * l.rows, l.cols};
    Tensor host_out = poisoned(out_shape, DType::f32), gpu_out = poisoned(out_shape, DType::f32, Device::cuda());
    tile_host::elementwise(i, x, y, host_out);
    tile_cuda::elementwise(i, gpu(x), gpu(y), gpu_out);
    const auto h = floats(host_out), g = floats(gpu_out);
    for (int op = 0; op < kElementwiseOutputs; ++op) {
      SCOPED_TRACE("elementwise output " + std::to_string(op) + " (see tile_parity_kernels.h)");
      const size_t n = size_t(l.rows) * l.cols;
      std::vector<float> hs(h.begin() + op * n, h.begin() + (op + 1) * n), gs(g.begin() + op * n, g.begin() + (op + 1) * n);
      // Outputs 7, 8, 9 and 12 add a row sum of C values, whose summation order differs between the host
      // (in order) and the GPU (a tree): allow rounding that grows with C.
      const bool uses_row_sum = op == 7 || op == 8 || op == 9 || op == 12;
      // Output 16 is normal_cdf_coarse, accurate to 6.5e-5 relative on the GPU (exact on the host).
      const double rel = op == 16 ? 7e-5 : 2e-6;
      EXPECT_TRUE(all_close(gs, hs, {uses_row_sum ? 2e-6 * l.cols : 2e-6, rel}));
    }
  }
}

TEST(TileParityGpu, RowAndColumnReductions) {
  TESSERA_REQUIRE_GPU();
  for (int i = 0; i < kNumLayouts; ++i) {
    const auto& l = kLayouts[i];
    for (bool partial : {false, true}) {
      SCOPED_TRACE(layout_name(i) + (partial ? ", view smaller than the tile (padding)" : ""));
      // Small integers: sums are exact in any order, and max/min/argmax see many ties.
      const int64_t rows = partial ? std::max(1, l.rows - 1) : l.rows, cols = partial ? std::max(1, l.cols - 3) : l.cols;
      Tensor x = random_small_ints({rows, cols}, -4, 4);
      if (l.rows > 1 && !partial) {  // one row of -inf: max is -inf, argmax 0
        for (int64_t c = 0; c < cols; ++c) x.data_as<float>()[c] = -INFINITY;
      }
      const float pad = partial ? -100.f : 0.f;
      Tensor hr = poisoned({l.rows, 6}, DType::f32), hc = poisoned({4, l.cols}, DType::f32), hf = poisoned({2 * l.rows, l.cols}, DType::f32);
      Tensor gr = poisoned({l.rows, 6}, DType::f32, Device::cuda()), gc = poisoned({4, l.cols}, DType::f32, Device::cuda()),
             gf = poisoned({2 * l.rows, l.cols}, DType::f32, Device::cuda());
      tile_host::reduce(i, x, hr, hc, hf, pad);
      tile_cuda::reduce(i, gpu(x), gr, gc, gf, pad);
      EXPECT_TRUE(all_close(floats(gr), floats(hr), {0, 0})) << "row_sum/max/min/argmax, row_sum of chunk sums, running row sums";
      EXPECT_TRUE(all_close(floats(gc), floats(hc), {0, 0})) << "col_sum/max/min/argmax";
      EXPECT_TRUE(all_close(floats(gf), floats(hf), {0, 0})) << "reduction results broadcast back";
    }
  }
}

TEST(TileParityGpu, MmaAndTranspose) {
  TESSERA_REQUIRE_GPU();
  for (int i = 0; i < kNumMmaShapes; ++i) {
    const auto& s = kMmaShapes[i];
    SCOPED_TRACE("mma " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + ", " + std::to_string(s.threads) + " threads");
    Tensor a = random_small_ints({s.m, s.k}, -3, 3), b = random_small_ints({s.k, s.n}, -3, 3), bt = random_small_ints({s.n, s.k}, -3, 3);
    Tensor acc0 = random_small_ints({s.m, s.n}, -50, 50);
    Tensor h0 = poisoned({s.m, s.n}, DType::f32), h1 = poisoned({s.m, s.n}, DType::f32), h2 = poisoned({s.k, s.m}, DType::f32);
    Tensor g0 = poisoned({s.m, s.n}, DType::f32, Device::cuda()), g1 = poisoned({s.m, s.n}, DType::f32, Device::cuda()),
           g2 = poisoned({s.k, s.m}, DType::f32, Device::cuda());
    tile_host::mma_transpose(i, a, b, bt, acc0, h0, h1, h2);
    tile_cuda::mma_transpose(i, gpu(a), gpu(b), gpu(bt), gpu(acc0), g0, g1, g2);
    EXPECT_TRUE(all_close(floats(g0), floats(h0), {0, 0})) << "acc + a @ b";
    EXPECT_TRUE(all_close(floats(g1), floats(h1), {0, 0})) << "mma_nt: a @ bt^T";
    EXPECT_TRUE(all_close(floats(g2), floats(h2), {0, 0})) << "transpose(a)";
  }
}

TEST(TileParityGpu, MmaIntoFragmentAccumulators) {
  TESSERA_REQUIRE_GPU();
  for (int i = 0; i < kNumFragmentShapes; ++i) {
    const auto& s = kFragmentShapes[i];
    SCOPED_TRACE("mma_accumulator " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + ", " +
                 std::to_string(s.threads) + " threads");
    Tensor a = random_small_ints({s.m, s.k}, -3, 3), b = random_small_ints({s.k, s.n}, -3, 3), bt = random_small_ints({s.n, s.k}, -3, 3);
    Tensor acc0 = random_small_ints({s.m, s.n}, -50, 50);
    Tensor h0 = poisoned({s.m, s.n}, DType::f32), h1 = poisoned({s.m, s.n}, DType::f32), h2 = poisoned({s.m, s.n}, DType::f32);
    Tensor g0 = poisoned({s.m, s.n}, DType::f32, Device::cuda()), g1 = poisoned({s.m, s.n}, DType::f32, Device::cuda());
    Tensor g2 = poisoned({s.m, s.n}, DType::f32, Device::cuda());
    tile_host::mma_fragments(i, a, b, bt, acc0, h0, h1, h2);
    tile_cuda::mma_fragments(i, gpu(a), gpu(b), gpu(bt), gpu(acc0), g0, g1, g2);
    EXPECT_TRUE(all_close(floats(g0), floats(h0), {0, 0})) << "acc0 + a @ b";
    EXPECT_TRUE(all_close(floats(g1), floats(h1), {0, 0})) << "mma_nt: a @ bt^T";
    EXPECT_TRUE(all_close(floats(g2), floats(h2), {0, 0})) << "a from registers: a @ b + a @ bt^T";
  }
}

TEST(TileParityGpu, LoadStoreAtEveryEdge) {
  TESSERA_REQUIRE_GPU();
  const int grid = 6;
  for (bool use_bf16 : {false, true})
    for (bool strided : {false, true})
      for (bool unaligned : {false, true}) {
        SCOPED_TRACE(std::string(use_bf16 ? "bf16" : "f32") + (strided ? ", column stride 2" : "") + (unaligned ? ", unaligned base and rows" : ""));
        const DType dt = use_bf16 ? DType::bf16 : DType::f32;
        Tensor buffer = random_tensor({20, 41}, dt);
        // The view: 20 x 40 elements, either aligned rows of 41 (from element 0) or starting at element 1.
        const size_t es = dtype_size(dt);
        Tensor host_src = Tensor::view(static_cast<char*>(buffer.data()) + (unaligned ? es : 0), {20, 40}, dt, Device::cpu(), {41, 1});
        Tensor gbuf = gpu(buffer);
        Tensor gpu_src = Tensor::view(static_cast<char*>(gbuf.data()) + (unaligned ? es : 0), {20, 40}, dt, Device::cuda(), {41, 1});
        Tensor hd = poisoned({grid * 8, grid * 16}, dt), gd = poisoned({grid * 8, grid * 16}, dt, Device::cuda());
        tile_host::load_store(use_bf16, strided, host_src, hd, grid, 5);
        tile_cuda::load_store(use_bf16, strided, gpu_src, gd, grid, 5);
        EXPECT_TRUE(all_equal(gd, hd));
      }
}

// The ReadOnce hint changes how the GPU issues a tile's 16-byte loads, not what they read: tiles inside an
// aligned view (the vector path, where the hint applies) and across its edges, against the host.
TEST(TileParityGpu, ReadOnceLoadsTheSameTiles) {
  TESSERA_REQUIRE_GPU();
  const int grid = 6;
  for (bool use_bf16 : {false, true}) {
    SCOPED_TRACE(use_bf16 ? "bf16" : "f32");
    const DType dt = use_bf16 ? DType::bf16 : DType::f32;
    // Rows of 168 elements: 16-byte aligned for both types. Tile origins: rows -4, 1, ..., 21 of 20; columns
    // -32, -8, ..., 88 (multiples of 8) of 150, so that 9 of the 36 tiles lie inside.
    Tensor buffer = random_tensor({20, 168}, dt);
    Tensor host_src = Tensor::view(buffer.data(), {20, 150}, dt, Device::cpu(), {168, 1});
    Tensor gbuf = gpu(buffer);
    Tensor gpu_src = Tensor::view(gbuf.data(), {20, 150}, dt, Device::cuda(), {168, 1});
    Tensor hd = poisoned({grid * 8, grid * 64}, dt), gd = poisoned({grid * 8, grid * 64}, dt, Device::cuda());
    tile_host::load_read_once(use_bf16, host_src, hd, grid, 5, 24);
    tile_cuda::load_read_once(use_bf16, gpu_src, gd, grid, 5, 24);
    EXPECT_TRUE(all_equal(gd, hd));
  }
}

TEST(TileParityGpu, AtomicAddFromManyBlocks) {
  TESSERA_REQUIRE_GPU();
  Tensor x = random_small_ints({4, 32}, -9, 9);
  Tensor host_out = from_floats(std::vector<float>(128, 0.f), {4, 32}, DType::f32);
  Tensor gpu_out = host_out.to(Device::cuda());
  tile_host::atomic_add(x, host_out, 7);
  tile_cuda::atomic_add(gpu(x), gpu_out, 7);
  EXPECT_TRUE(all_equal(gpu_out, host_out));
  const auto h = floats(host_out), xs = floats(x);
  for (size_t i = 0; i < h.size(); ++i) EXPECT_EQ(h[i], 28 * xs[i]);  // blocks add x * 1 .. x * 7
}

}  // namespace
}  // namespace tessera::tile_tests
#endif
