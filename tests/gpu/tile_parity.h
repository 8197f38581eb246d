// Runners of the tile-operation test kernels, one set per backend (tile_parity_host.cpp, tile_parity_cuda.cu).
#pragma once
#include "tessera/runtime/tensor.h"

namespace tessera::tile_tests {

struct Layout { int rows, cols, threads; const char* why; };
inline constexpr Layout kLayouts[] = {
    {1, 8, 128, "replicated: 1 chunk, 128 copies"},
    {2, 16, 128, "replicated: 4 chunks"},
    {16, 64, 128, "one chunk per thread, row groups of 8 lanes"},
    {8, 256, 64, "rows of 32 chunks: a warp per row"},
    {32, 32, 128, "row groups of 4 lanes, several chunks per thread"},
    {64, 8, 128, "one chunk per row: column reductions over 128 row groups"},
    {4, 2048, 256, "rows of 256 chunks: every thread touches every row"},
    {1, 4096, 256, "one row over 8 warps, 2 chunks per thread"},
    {2, 512, 128, "rows of 64 chunks: a row spans 2 warps"},
};
inline constexpr int kNumLayouts = int(sizeof(kLayouts) / sizeof(kLayouts[0]));

// Results of the Elementwise test kernel, each an R x C block of its output.
inline constexpr int kElementwiseOutputs = 18;

struct MmaShape { int m, n, k, threads; };
// The generic kernels' shapes (matmul 64 x 64, 128 x 64 and 32 x 128 with k slices of 32 on 256 threads;
// prefill 32 and decode 16 query rows against 64-key tiles and 64-column head-dim chunks on 128), and shapes
// with fewer 16 x 8 fragments than warps (some warps idle in the tensor-core form).
inline constexpr MmaShape kMmaShapes[] = {{16, 16, 16, 128}, {32, 64, 32, 128}, {64, 64, 32, 256}, {16, 8, 64, 64},
                                          {128, 64, 32, 256}, {32, 128, 32, 256}, {32, 64, 64, 128}, {16, 64, 64, 128}};
inline constexpr int kNumMmaShapes = int(sizeof(kMmaShapes) / sizeof(kMmaShapes[0]));
// Products into mma_accumulator (cuda/fragment_mma.h): the generic matmul's 64 x 64 and 128 x 64 tiles on 128
// threads, two groups of 128 threads, one 8-column fragment (ldmatrix x2), and a shape with no fragment
// layout (64 rows on 256 threads: the Blocked accumulator).
inline constexpr MmaShape kFragmentShapes[] = {{64, 64, 32, 128}, {128, 64, 32, 128}, {128, 64, 32, 256}, {64, 8, 16, 128},
                                               {64, 128, 16, 128}, {64, 64, 32, 256}};
inline constexpr int kNumFragmentShapes = int(sizeof(kFragmentShapes) / sizeof(kFragmentShapes[0]));

#define TESSERA_TILE_TEST_RUNNERS                                                                             \
  void elementwise(int layout, const Tensor& x, const Tensor& y, const Tensor& out);                          \
  void reduce(int layout, const Tensor& x, const Tensor& rows, const Tensor& cols, const Tensor& full, float pad); \
  void mma_transpose(int shape, const Tensor& a, const Tensor& b, const Tensor& bt, const Tensor& acc0,       \
                     const Tensor& out0, const Tensor& out1, const Tensor& out2);                             \
  void mma_fragments(int shape, const Tensor& a, const Tensor& b, const Tensor& bt, const Tensor& acc0,       \
                     const Tensor& out0, const Tensor& out1, const Tensor& out2);                             \
  /* src is viewed with column stride 2 when `strided`; blocks form a grid x grid of offsets */               \
  void load_store(bool bf16_elements, bool strided, const Tensor& src, const Tensor& dst, int grid, int64_t step); \
  void load_read_once(bool bf16_elements, const Tensor& src, const Tensor& dst, int grid, int64_t step, int64_t col_step); \
  void atomic_add(const Tensor& x, const Tensor& out, int blocks);
namespace tile_host { TESSERA_TILE_TEST_RUNNERS }
namespace tile_cuda { TESSERA_TILE_TEST_RUNNERS }
#undef TESSERA_TILE_TEST_RUNNERS

}  // namespace tessera::tile_tests
