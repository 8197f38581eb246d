// Batched matmuls as tile kernels: the generic kernel's tile step (matmul_tile) run once per problem of a batch,
// the problem chosen by grid axis z.
//
// Bmm: block (i, j, b) computes tile (i, j) of c[b] = epilogue(a[b] @ b[b]). Each operand is a [B, rows, cols]
// view with any batch and row strides, so a batch of slices of a larger tensor needs no copy.
//
// GroupGemm (mixture-of-experts): G problems of different M stacked in one a [sum M_g, K], delimited by row
// offsets [G + 1]; group g is rows offsets[g] .. offsets[g + 1] of a and c, times weights b[g] ([N, K]).
// Block (i, j, g) computes tile (i, j) of group g, and exits when the group has no row i * BM: the grid is
// sized for the largest group (or, offsets on the GPU, for all rows), the smaller groups leave blocks idle.
#pragma once
#include "ops/matmul/matmul.tile.h"

namespace tessera::ops::kernels {

template <class T, class TO, bool B_KN, int BM, int BN, int BK, int THREADS>
struct Bmm {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View3<const T> a, b;       // a [B, M, K]; b [B, N, K] or [B, K, N]
    tile::View2<const T> bias;       // [M, N] with row stride 0, or empty
    tile::View3<const TO> residual;  // [B, M, N], or empty
    tile::View3<TO> c;               // [B, M, N]
    EpilogueParams epilogue;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t batch = blk.bid(2);
    const tile::View2<const TO> residual = p.epilogue.has_residual ? p.residual[batch] : tile::View2<const TO>{};
    matmul_tile<B_KN, BM, BN, BK>(blk, p.a[batch], p.b[batch], p.c[batch], p.bias, residual, p.epilogue,
                                  blk.bid(0) * BM, blk.bid(1) * BN);
  }
};

template <class T, class TO, int BM, int BN, int BK, int THREADS>
struct GroupGemm {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const T> a;                // [sum M_g, K]
    tile::View3<const T> b;                // [G, N, K]
    tile::View2<TO> c;                     // [sum M_g, N]
    tile::View1<const int32_t> offsets32;  // [G + 1], one of the two
    tile::View1<const int64_t> offsets64;
    bool offsets_i64;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t g = blk.bid(2), rows = p.a.extent[0], k = p.a.extent[1], n = p.c.extent[1];
    auto offset = [&](int64_t i) { return p.offsets_i64 ? p.offsets64(i) : int64_t(p.offsets32(i)); };
    // Offsets clamped into a: whatever (unchecked, on a GPU) offsets hold, no access leaves a or c.
    auto clamp = [](int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : x > hi ? hi : x; };
    const int64_t begin = clamp(offset(g), 0, rows), end = clamp(offset(g + 1), begin, rows);
    const int64_t m0 = blk.bid(0) * BM;
    if (m0 >= end - begin) return;
    const tile::View2<const T> no_bias{};
    const tile::View2<const TO> no_residual{};
    matmul_tile<false, BM, BN, BK>(blk, p.a.window(begin, 0, end - begin, k), p.b[g],
                                   p.c.window(begin, 0, end - begin, n), no_bias, no_residual, EpilogueParams{0, 1.f, false, false},
                                   m0, blk.bid(1) * BN);
  }
};

}  // namespace tessera::ops::kernels
