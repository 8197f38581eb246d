// Test kernels for tile operations (complementing tile_parity_kernels.h): reductions and argmax over rows
// mixing NaN, -inf and ties; int tiles; broadcasting with the vector as the LEFT operand; loads and stores
// through views with unaligned base pointers and non-unit column strides. Each kernel is instantiated for
// the host (tile_op_host.cpp, the specification) and for CUDA (tile_op_cuda.cu); test_tile_ops_gpu.cpp
// checks that both give bit-identical results.
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::tile_op_tests {

// rows_out is [R, 10], cols_out is [8, C], full_out is [6 R, C].
template <int R, int C, int TH>
struct ReduceMixed {
  static constexpr int threads = TH;
  struct Params { tile::View2<const float> x; tile::View2<float> rows_out, cols_out, full_out; };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const auto x = load<R, C>(blk, p.x, {0, 0}, -INFINITY);
    store(blk, p.rows_out, {0, 0}, row_max(x));
    store(blk, p.rows_out, {0, 1}, row_min(x));
    store(blk, p.rows_out, {0, 2}, cast<float>(row_argmax(x)));
    store(blk, p.rows_out, {0, 3}, cast<float>(row_argmax(-x)));
    store(blk, p.cols_out, {0, 0}, col_max(x));
    store(blk, p.cols_out, {1, 0}, col_min(x));
    store(blk, p.cols_out, {2, 0}, cast<float>(col_argmax(x)));
    store(blk, p.cols_out, {3, 0}, cast<float>(col_argmax(-x)));
    // int tiles, from a clean integer version of x (NaN -> 0, clamped to [-100, 100])
    const auto xi = cast<int>(where(x == x, maximum(minimum(x, 100.f), -100.f), 0.f));
    store(blk, p.rows_out, {0, 4}, cast<float>(row_sum(xi)));
    store(blk, p.rows_out, {0, 5}, cast<float>(row_max(xi)));
    store(blk, p.rows_out, {0, 6}, cast<float>(row_min(xi)));
    store(blk, p.rows_out, {0, 7}, cast<float>(row_argmax(xi)));
    store(blk, p.cols_out, {4, 0}, cast<float>(col_sum(xi)));
    store(blk, p.cols_out, {5, 0}, cast<float>(col_max(xi)));
    store(blk, p.cols_out, {6, 0}, cast<float>(col_min(xi)));
    store(blk, p.cols_out, {7, 0}, cast<float>(col_argmax(cast<float>(xi))));  // shares the float col_argmax staging buffer
    const auto xf = cast<float>(xi);
    store(blk, p.rows_out, {0, 8}, row_sum(xf));
    store(blk, p.rows_out, {0, 9}, row_sum(xf * xf) - row_max(xf));
    // Broadcasts with the vector first and second, and the outer broadcast, all exact on integers.
    const auto colv = row_sum(xf);   // R x 1
    const auto rowv = col_min(xf);   // 1 x C
    store(blk, p.full_out, {0, 0}, rowv - xf);
    store(blk, p.full_out, {int64_t(R), 0}, xf * rowv);
    store(blk, p.full_out, {int64_t(2 * R), 0}, colv - xf);
    store(blk, p.full_out, {int64_t(3 * R), 0}, xf + colv);
    store(blk, p.full_out, {int64_t(4 * R), 0}, colv * 16.f + rowv);  // a power of two: exact even if contracted to an fma
    store(blk, p.full_out, {int64_t(5 * R), 0}, where(xf > colv * (1.f / C), rowv, colv) + cast<float>(xi > rowv));
  }
};

// Block (i, j) loads the R x C tile of src at (i * step_r - R / 2, j * step_c - C / 2), so tiles cross every
// edge of the source view, and stores it to dst at (i * (R + 2) + dr, j * (C + 2) + dc): tiles of different
// blocks never overlap, and negative dr / dc and small dst extents mask the stores at every edge.
template <class T, int R, int C, int TH>
struct EdgeCopy {
  static constexpr int threads = TH;
  struct Params { tile::View2<const T> src; tile::View2<T> dst; int64_t step_r, step_c, dr, dc; };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t i = blk.bid(0), j = blk.bid(1);
    const auto t = load<R, C>(blk, p.src, {i * p.step_r - R / 2, j * p.step_c - C / 2}, -3.f);
    store(blk, p.dst, {i * (R + 2) + p.dr, j * (C + 2) + p.dc}, t);
  }
};

}  // namespace tessera::tile_op_tests
