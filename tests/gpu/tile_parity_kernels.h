// Test kernels for the tile operations themselves. Each is instantiated for the host (the specification) and
// for CUDA; tests/gpu/test_tile_parity_gpu.cpp checks that both give the same results. The shapes and
// thread counts cover every situation of tile/cuda/layout.h: replicated tiles, one chunk per thread, rows
// spanning several warps, row groups narrower than a warp, and column reductions over several row groups.
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::tile_tests {

// Elementwise math, casts, comparisons and where, with row-vector, column-vector and scalar broadcasting.
// out is [18 * R, C]: one R x C result per operation.
template <int R, int C, int TH>
struct Elementwise {
  static constexpr int threads = TH;
  struct Params { tile::View2<const float> x, y; tile::View2<float> out; };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const auto x = load<R, C>(blk, p.x, {0, 0});
    const auto y = load<R, C>(blk, p.y, {0, 0}, 0.5f);
    const auto row = load<1, C>(blk, p.y, {0, 0});
    const auto col = row_sum(y);  // an R x 1 column vector in the layout that broadcasts over x
    int i = 0;
    auto put = [&](const auto& t) { store(blk, p.out, {int64_t(i++) * R, 0}, t); };
    put(x + y * 2.f - x / (abs(y) + 1.f));
    put(exp2(x) + exp(y) + log(abs(x) + 1.f) + log2(abs(y) + 2.f));
    put(sqrt(abs(x)) + rsqrt(abs(y) + 1.f));
    put(tanh(x) + sigmoid(y) + erf(x * y));
    put(sin(x) * cos(y));
    put(maximum(x, y) - minimum(x, 0.25f));
    put(where(x > y, x, y) + where(x <= 0.f, 1.f, -1.f));
    put(x * row + col);
    put(x - col * 0.5f + row);
    put(fma(x, y, col));
    put(cast<float>(cast<bf16>(x * 3.f)) + cast<float>(cast<f16>(y * 7.f)));
    put(cast<float>(arange<R, C>(blk, 0) * 1000 + arange<R, C>(blk, 1)));
    put(broadcast_to<R, C>(col) + broadcast_to<R, C>(row) * 2.f);
    put(-x + full_like(x, 3.f) + zeros<float, R, C>(blk));
    put(cast<float>((x > 0.f) & (y < 0.f)) + cast<float>((x > 0.5f) | (y > 0.5f)) * 2.f);
    put(normal_cdf(x * 6.f));
    put(normal_cdf_coarse(x * 6.f));
    put(cos_sin(x * 40.f).cos - cos_sin(y * 3000.f).sin);
  }
};

// Row and column reductions over a tile whose valid region is the view's extent (the rest is padding
// `pad`), results broadcast back. out is [R, 4 + 4 + 2 C] laid out in column blocks: row results in
// columns 0..5 (sum, max, min, argmax, a row sum through chunk sums, running row sums, each as an R x 1 column),
// column results as rows of a second output.
template <int R, int C, int TH>
struct Reduce {
  static constexpr int threads = TH;
  struct Params { tile::View2<const float> x; tile::View2<float> rows_out, cols_out, full_out; float pad; };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const auto x = load<R, C>(blk, p.x, {0, 0}, p.pad);
    store(blk, p.rows_out, {0, 0}, row_sum(x));
    store(blk, p.rows_out, {0, 1}, row_max(x));
    store(blk, p.rows_out, {0, 2}, row_min(x));
    store(blk, p.rows_out, {0, 3}, cast<float>(row_argmax(x)));
    store(blk, p.rows_out, {0, 4}, row_sum(chunk_sums(x) * 2.f + chunk_sums(x * x)));  // running chunk sums
    auto sums = running_row_sums(x);  // (0 / 2 + row_sum(x)) / 2 + row_sum(x)
    add_row_sums(sums, 0.5f, x);
    add_row_sums(sums, 0.5f, x);
    store(blk, p.rows_out, {0, 5}, total(sums));
    store(blk, p.cols_out, {0, 0}, col_sum(x));
    store(blk, p.cols_out, {1, 0}, col_max(x));
    store(blk, p.cols_out, {2, 0}, col_min(x));
    store(blk, p.cols_out, {3, 0}, cast<float>(col_argmax(x)));
    // Reduction results broadcast back over the tile, and the outer broadcast of a column and a row.
    store(blk, p.full_out, {0, 0}, x - row_max(x) + col_min(x));
    store(blk, p.full_out, {R, 0}, row_sum(x) + col_sum(x));
  }
};

// transpose and mma: out0 = acc0 + a @ b (bf16 operands), out1 = a @ bt^T (mma_nt, f16), out2 = transpose(a).
// 16-bit operands take the warp-level tensor cores on sm_80 and later, fp32 ones (the ops' f32 tests) the
// scalar form.
template <int M, int N, int K, int TH>
struct MmaTranspose {
  static constexpr int threads = TH;
  struct Params { tile::View2<const float> a, b, bt, acc0; tile::View2<float> out0, out1, out2; };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const auto a = cast<bf16>(load<M, K>(blk, p.a, {0, 0}));
    auto acc = load<M, N>(blk, p.acc0, {0, 0});
    mma(acc, a, cast<bf16>(load<K, N>(blk, p.b, {0, 0})));
    store(blk, p.out0, {0, 0}, acc);
    auto acc1 = zeros<float, M, N>(blk);
    mma_nt(acc1, cast<f16>(load<M, K>(blk, p.a, {0, 0})), cast<f16>(load<N, K>(blk, p.bt, {0, 0})));
    store(blk, p.out1, {0, 0}, acc1);
    store(blk, p.out2, {0, 0}, transpose(load<M, K>(blk, p.a, {0, 0})));
  }
};

// The same products into mma_accumulator's tiles: out0 = acc0 + a @ b (bf16), out1 = a @ bt^T (mma_nt, f16).
template <int M, int N, int K, int TH>
struct MmaFragments {
  static constexpr int threads = TH;
  struct Params { tile::View2<const float> a, b, bt, acc0; tile::View2<float> out0, out1, out2; };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    // out2 = a @ b + a @ bt^T with a loaded in the accumulator's layout: its fragments straight from registers.
    auto acc2 = mma_accumulator<M, N>(blk);
    const auto a_like = load_like(blk, mma_accumulator<M, K>(blk), p.a, {0, 0});
    mma(acc2, cast<bf16>(a_like), cast<bf16>(load<K, N>(blk, p.b, {0, 0})));
    mma_nt(acc2, cast<f16>(a_like), cast<f16>(load<N, K>(blk, p.bt, {0, 0})));
    store(blk, p.out2, {0, 0}, acc2);
    auto acc = mma_accumulator<M, N>(blk);
    acc = acc + load_like(blk, acc, p.acc0, {0, 0});
    mma(acc, cast<bf16>(load<M, K>(blk, p.a, {0, 0})), cast<bf16>(load<K, N>(blk, p.b, {0, 0})));
    store(blk, p.out0, {0, 0}, acc);
    auto acc1 = mma_accumulator<M, N>(blk);
    mma_nt(acc1, cast<f16>(load<M, K>(blk, p.a, {0, 0})), cast<f16>(load<N, K>(blk, p.bt, {0, 0})));
    store(blk, p.out1, {0, 0}, acc1);
  }
};

// Loads at offsets that cross every edge of a strided view, stored at an offset into a larger output:
// padding, masking and the scalar paths of load and store. Each block handles one offset of the grid (rows
// `step` apart, columns `col_step`). Hints: the load's hints (common.h), which change no value.
template <class T, int R, int C, int TH, class... Hints>
struct LoadStoreEdges {
  static constexpr int threads = TH;
  struct Params { tile::View2<const T> src; tile::View2<T> dst; int64_t step, col_step; };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r0 = blk.bid(0) * p.step - R / 2, c0 = blk.bid(1) * p.col_step - C / 2;
    const auto t = load<R, C>(blk, p.src, {r0, c0}, -7.f, Hints{}...);
    store(blk, p.dst.window(blk.bid(0) * R, blk.bid(1) * C, R, C), {0, 0}, t);
  }
};

// Blocks of one launch adding into the same elements.
template <int R, int C, int TH>
struct AtomicAdd {
  static constexpr int threads = TH;
  struct Params { tile::View2<const float> x; tile::View2<float> out; };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    atomic_add(blk, p.out, {0, 0}, load<R, C>(blk, p.x, {0, 0}) * float(blk.bid(0) + 1));
  }
};

}  // namespace tessera::tile_tests
