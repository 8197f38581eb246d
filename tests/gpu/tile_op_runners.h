// Runners of the kernels of tile_op_kernels.h, one set per backend (tile_op_host.cpp, tile_op_cuda.cu).
#pragma once
#include "tessera/runtime/tensor.h"

namespace tessera::tile_op_tests {

struct ReduceLayout { int rows, cols, threads; const char* why; };
inline constexpr ReduceLayout kReduceLayouts[] = {
    {1, 8, 128, "replicated 1x8: one chunk, 128 copies"},
    {2, 16, 128, "replicated 2x16: 4 chunks"},
    {64, 8, 128, "replicated 64x8: one chunk per row, column reduction over 64 row groups"},
    {16, 64, 128, "N == threads, row groups of 8 lanes, 16 column row-groups"},
    {32, 32, 128, "2 chunks per thread, row groups of 4 lanes"},
    {2, 512, 128, "row group of 64 threads: 2 warps per row"},
    {4, 2048, 256, "every thread touches every row (group 256 > 32)"},
    {1, 4096, 256, "one row over 8 warps, 2 chunks per thread"},
    {8, 256, 32, "a single warp: each thread 8 chunks"},
};
inline constexpr int kNumReduceLayouts = int(sizeof(kReduceLayouts) / sizeof(kReduceLayouts[0]));

struct CopyLayout { int rows, cols, threads; const char* why; };
inline constexpr CopyLayout kCopyLayouts[] = {
    {8, 16, 64, "2 chunks per row, replicated"},
    {16, 64, 128, "N == threads"},
    {4, 4, 32, "chunks of 4 elements (V < 8), replicated"},
    {32, 32, 64, "several chunks per thread"},
};
inline constexpr int kNumCopyLayouts = int(sizeof(kCopyLayouts) / sizeof(kCopyLayouts[0]));

// dtype: f32, bf16 or f16. src and dst are rank-2 tensors; the views passed to the kernel start at element
// (0, *_offset) of them (unaligned base pointers), take every *_col_stride-th column, and have the given
// extents (rows and columns of the view, within the tensor).
struct CopyCase {
  int layout;
  int64_t src_offset, src_col_stride, src_rows, src_cols;
  int64_t dst_offset, dst_col_stride, dst_rows, dst_cols;
  int64_t grid, step_r, step_c, dr, dc;
};

#define TESSERA_TILE_OP_RUNNERS                                                                          \
  void reduce_mixed(int layout, const Tensor& x, const Tensor& rows, const Tensor& cols, const Tensor& full); \
  void edge_copy(const CopyCase& c, const Tensor& src, const Tensor& dst);
namespace tile_host { TESSERA_TILE_OP_RUNNERS }
namespace tile_cuda { TESSERA_TILE_OP_RUNNERS }
#undef TESSERA_TILE_OP_RUNNERS

}  // namespace tessera::tile_op_tests
