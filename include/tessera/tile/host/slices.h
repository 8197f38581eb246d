// Sliced tiles, the specification: a tile of S x 16 rows holds S independent 16-row slices (kSliceRows), each
// multiplied against its own slice of a shared tile and combined with the others at the end. Decode attention
// with few query rows copies them into every slice and cuts each key tile in S, so the key tile's work is
// spread over the slices (on the GPU: over the four warps of a consumer warpgroup, each on its own keys) and
// every row's online softmax runs per slice, to be combined once.
//
//   mma_slices(acc, a, transpose(b))   acc [S 16, N] += per slice s: a_s [16, K] @ (rows [s N, s N + N) of b)^T
//   mma_slices(acc, a, b)              acc [S 16, N] += per slice s: a_s [16, K] @ rows [s K, s K + K) of b
//   load_slices(blk, like, view, at)   [S 16, C]: the 16 rows at `at` (load_like of a rank-3 view) in every slice
//   pipe.slice_max(x), slice_sum(x)    [S 16, C] -> [16, C]: row r is the max / sum of row r of every slice
//   repeat_slices<S>(x)                [16, 1] -> [S 16, 1]: x in every slice
//
// On the GPU S is 4 per consumer warpgroup (a slice a warp) and a sliced tile is an accumulator tile of the
// block's cooperative consumers.
#pragma once
#include "tessera/tile/host/gather.h"
#include "tessera/tile/host/tile.h"
#include "tessera/tile/staged.h"

namespace tessera::tile::host {

template <class T, int M, int N, int K, int R>
void mma_slices(Tile<float, M, N>& acc, const Tile<T, M, K>& a, const Transposed<SharedTile<T, R, K>>& b) {
  static_assert(M % kSliceRows == 0 && R == (M / kSliceRows) * N, "b holds one N-row slice per 16-row slice of acc");
  for (int m = 0; m < M; ++m) {
    const int first = (m / kSliceRows) * N;
    for (int n = 0; n < N; ++n) {
      float s = acc(m, n);
      for (int k = 0; k < K; ++k) s += to_float(a(m, k)) * to_float(b.tile.data[(first + n) * K + k]);
      acc(m, n) = s;
    }
  }
}

template <class T, int M, int N, int K, int R>
void mma_slices(Tile<float, M, N>& acc, const Tile<T, M, K>& a, const SharedTile<T, R, N>& b) {
  static_assert(M % kSliceRows == 0 && R == (M / kSliceRows) * K, "b holds one K-row slice per 16-row slice of acc");
  for (int m = 0; m < M; ++m) {
    const int first = (m / kSliceRows) * K;
    for (int k = 0; k < K; ++k) {
      const float x = to_float(a(m, k));
      for (int n = 0; n < N; ++n) acc(m, n) += x * to_float(b.data[(first + k) * N + n]);
    }
  }
}

template <class T, class U, int M, int C>
Tile<std::remove_const_t<T>, M, C> load_slices(const Block& blk, const Tile<U, M, C>&, const View3<T>& view, Coord at,
                                               float pad = 0.f) {
  static_assert(M % kSliceRows == 0, "whole 16-row slices");
  const auto first = load_like(blk, Tile<U, kSliceRows, C>{}, view, at, pad);
  Tile<std::remove_const_t<T>, M, C> out;
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < C; ++c) out(r, c) = first(r % kSliceRows, c);
  return out;
}

template <int S, class T>
Tile<T, S * kSliceRows, 1> repeat_slices(const Tile<T, kSliceRows, 1>& t) {
  Tile<T, S * kSliceRows, 1> out;
  for (int r = 0; r < S * kSliceRows; ++r) out(r, 0) = t(r % kSliceRows, 0);
  return out;
}

namespace detail {
template <int M, int C, class F>
Tile<float, kSliceRows, C> combine_slices(const Tile<float, M, C>& t, F f) {
  static_assert(M % kSliceRows == 0, "whole 16-row slices");
  Tile<float, kSliceRows, C> out;
  for (int r = 0; r < kSliceRows; ++r)
    for (int c = 0; c < C; ++c) {
      float x = t(r, c);
      for (int s = 1; s < M / kSliceRows; ++s) x = f(x, t(s * kSliceRows + r, c));
      out(r, c) = x;
    }
  return out;
}
}  // namespace detail

}  // namespace tessera::tile::host
