// CUDA gather and scatter of rows by index; the contract is host/gather.h's. The row indices are shared
// through shared memory (any layout of the R x 1 index tile works), then each thread moves the chunks of
// the tile it holds, 16 bytes at a time where the row is unit-stride and aligned.
#pragma once
#include "tessera/tile/cuda/reduce.h"

namespace tessera::tile::cuda {

namespace detail {
template <class T>
__device__ __forceinline__ int64_t row_element_offset(const View3<T>& view, int64_t n, int64_t c) {
  const int64_t rows = view.extent[0] * view.extent[1];
  if (n < 0 || n >= rows || c < 0 || c >= view.extent[2]) return -1;
  return (n / view.extent[1]) * view.stride[0] + (n % view.extent[1]) * view.stride[1] + c * view.stride[2];
}

// Every thread sees every row index: idx[r] = rows(r, 0).
template <int R, class LI>
__device__ __forceinline__ void share_row_indices(int (&idx)[R], const Tile<int, LI>& rows) {
  static_assert(LI::rows == R && LI::cols == 1, "row indices are an R x 1 int tile");
  block_sync();
#pragma unroll
  for (int e = 0; e < LI::size; ++e)
    if (LI::owner(e)) idx[LI::row(e)] = rows.v[e];
  block_sync();
}
}  // namespace detail

template <int C, class T, class LI, int TH>
__device__ __forceinline__ Tile<std::remove_const_t<T>, Blocked<LI::rows, C, TH>> gather_rows(
    const Block<TH>&, const View3<T>& view, const Tile<int, LI>& rows, int64_t col0, float pad = 0.f) {
  using U = std::remove_const_t<T>;
  constexpr int R = LI::rows;
  using L = Blocked<R, C, TH>;
  using Copy = detail::chunk_copy<U, L::V>;
  __shared__ int idx[R];
  detail::share_row_indices(idx, rows);
  Tile<U, L> t;
  const U padv = convert_element<U>(pad);
  const int64_t nrows = view.extent[0] * view.extent[1];
#pragma unroll
  for (int k = 0; k < L::chunks; ++k) {
    const int ch = L::chunk(k);
    const int64_t n = idx[ch / L::nc];
    const int64_t gc = col0 + (ch % L::nc) * L::V;
    const bool row_in = n >= 0 && n < nrows;
    const U* src = row_in ? view.data + (n / view.extent[1]) * view.stride[0] + (n % view.extent[1]) * view.stride[1] +
                                gc * view.stride[2]
                          : nullptr;
    if (row_in && gc >= 0 && gc + L::V <= view.extent[2] && view.stride[2] == 1 && Copy::aligned(src)) {
      Copy::run(&t.v[k * L::V], src);
    } else {
#pragma unroll
      for (int i = 0; i < L::V; ++i) {
        const int64_t off = detail::row_element_offset(view, n, gc + i);
        t.v[k * L::V + i] = off < 0 ? padv : view.data[off];
      }
    }
  }
  return t;
}

template <class T, class U, class L, class LI, int TH>
__device__ __forceinline__ void scatter_rows(const Block<TH>&, const View3<T>& view, const Tile<int, LI>& rows, int64_t col0,
                                             const Tile<U, L>& t) {
  static_assert(std::is_same_v<T, U>, "scatter_rows: the tile's element type must equal the view's: cast first");
  __shared__ int idx[L::rows];
  detail::share_row_indices(idx, rows);
#pragma unroll
  for (int e = 0; e < L::size; ++e) {
    if (!L::owner(e)) continue;
    const int64_t off = detail::row_element_offset(view, idx[L::row(e)], col0 + L::col(e));
    if (off >= 0) view.data[off] = t.v[e];
  }
}

// Rank-3 views seen as rows (host/gather.h): a tile laid out like `like` read from row at.row, column at.col;
// `pad` outside.
template <class T, class U, class L, int TH>
__device__ __forceinline__ Tile<std::remove_const_t<T>, L> load_like(const Block<TH>&, const Tile<U, L>&, const View3<T>& view,
                                                                     Coord at, float pad = 0.f) {
  using V = std::remove_const_t<T>;
  Tile<V, L> out;
  const V padv = convert_element<V>(pad);
#pragma unroll
  for (int e = 0; e < L::size; ++e) {
    const int64_t off = detail::row_element_offset(view, at.row + L::row(e), at.col + L::col(e));
    out.v[e] = off < 0 ? padv : view.data[off];
  }
  return out;
}

// The tile written from row at.row, column at.col of a rank-3 view seen as rows; outside elements dropped.
template <class T, class U, class L, int TH>
__device__ __forceinline__ void store(const Block<TH>&, const View3<T>& view, Coord at, const Tile<U, L>& t) {
  static_assert(std::is_same_v<T, U>, "store: the tile's element type must equal the view's: cast first");
#pragma unroll
  for (int e = 0; e < L::size; ++e) {
    if (!L::owner(e)) continue;
    const int64_t off = detail::row_element_offset(view, at.row + L::row(e), at.col + L::col(e));
    if (off >= 0) view.data[off] = t.v[e];
  }
}

}  // namespace tessera::tile::cuda
