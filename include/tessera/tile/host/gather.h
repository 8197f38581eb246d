// Host gather and scatter of rows by index: the specification.
//
// A rank-3 view [D0, D1, C] is a sequence of D0 * D1 rows of C elements: row n is view(n / D1, n % D1, :),
// whatever the strides. So a paged cache [pages, page_size, dim] (one KV head selected) or the [tokens,
// heads, dim] slice of a strided activation buffer are both row sequences, and a tile of rows can be read
// from scattered places in one operation.
#pragma once
#include "tessera/tile/host/tile.h"

namespace tessera::tile::host {

namespace detail {
// Element offset of (row n, column c) of a rank-3 view seen as rows, or -1 when outside its extents.
template <class T>
int64_t row_element_offset(const View3<T>& view, int64_t n, int64_t c) {
  const int64_t rows = view.extent[0] * view.extent[1];
  if (n < 0 || n >= rows || c < 0 || c >= view.extent[2]) return -1;
  return (n / view.extent[1]) * view.stride[0] + (n % view.extent[1]) * view.stride[1] + c * view.stride[2];
}
}  // namespace detail

// An R x C tile whose row r holds columns [col0, col0 + C) of row rows(r, 0) of `view`. Rows outside
// [0, D0 * D1) (say -1, for "no row") and columns outside the view read as `pad`.
template <int C, class T, int R>
Tile<std::remove_const_t<T>, R, C> gather_rows(const Block&, const View3<T>& view, const Tile<int, R, 1>& rows, int64_t col0,
                                               float pad = 0.f) {
  using U = std::remove_const_t<T>;
  Tile<U, R, C> t;
  const U padv = convert_element<U>(pad);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const int64_t off = detail::row_element_offset(view, rows(r, 0), col0 + c);
      t(r, c) = off < 0 ? padv : view.data[off];
    }
  return t;
}

// Writes row r of the tile to columns [col0, col0 + C) of row rows(r, 0) of `view`. Rows and columns outside
// the view are dropped. Two tile rows with the same index: one of them is written (which is unspecified).
template <class T, class U, int R, int C>
void scatter_rows(const Block&, const View3<T>& view, const Tile<int, R, 1>& rows, int64_t col0, const Tile<U, R, C>& t) {
  static_assert(std::is_same_v<T, U>, "scatter_rows: the tile's element type must equal the view's: cast first");
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const int64_t off = detail::row_element_offset(view, rows(r, 0), col0 + c);
      if (off >= 0) view.data[off] = t(r, c);
    }
}

// The tile with its first element at row at.row, column at.col of a rank-3 view seen as rows (row n is
// view(n / D1, n % D1, :)): consecutive rows that cross from one D1 group into the next, e.g. the (token, head)
// rows of a group of query heads. Outside the rows or columns: `pad`. Shaped like `like`.
template <class T, class U, int R, int C>
Tile<std::remove_const_t<T>, R, C> load_like(const Block&, const Tile<U, R, C>&, const View3<T>& view, Coord at,
                                             float pad = 0.f) {
  using V = std::remove_const_t<T>;
  Tile<V, R, C> t;
  const V padv = convert_element<V>(pad);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const int64_t off = detail::row_element_offset(view, at.row + r, at.col + c);
      t(r, c) = off < 0 ? padv : view.data[off];
    }
  return t;
}

// Writes the tile from row at.row, column at.col of a rank-3 view seen as rows; outside elements are dropped.
template <class T, class U, int R, int C>
void store(const Block&, const View3<T>& view, Coord at, const Tile<U, R, C>& t) {
  static_assert(std::is_same_v<T, U>, "store: the tile's element type must equal the view's: cast first");
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const int64_t off = detail::row_element_offset(view, at.row + r, at.col + c);
      if (off >= 0) view.data[off] = t(r, c);
    }
}

}  // namespace tessera::tile::host
