// Host implementation of the tile language: the specification of every tile operation.
// A block is one CPU thread and a tile is a whole R x C array it owns; each operation is a plain loop.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cassert>
#include <cstring>
#include <type_traits>

#include "tessera/tile/common.h"

namespace tessera::tile::host {

struct Block {
  int64_t block[3] = {0, 0, 0};
  int64_t blocks[3] = {1, 1, 1};
  // This block's coordinate along grid axis 0, 1 or 2.
  int64_t bid(int axis) const { return block[axis]; }
  int64_t num_blocks(int axis) const { return blocks[axis]; }
};

// An R x C tile of T, row-major. R x 1 tiles are column vectors and 1 x C tiles row vectors: both broadcast
// against R x C tiles in elementwise operations, as in NumPy.
template <class T, int R, int C>
struct Tile {
  static_assert(R > 0 && C > 0, "tile extents must be positive");
  using value_type = T;
  static constexpr int rows = R, cols = C;
  T v[R * C];
  T& operator()(int r, int c) { return v[r * C + c]; }
  const T& operator()(int r, int c) const { return v[r * C + c]; }
};

template <class X> struct is_tile : std::false_type {};
template <class T, int R, int C> struct is_tile<Tile<T, R, C>> : std::true_type {};
template <class X> inline constexpr bool is_tile_v = is_tile<std::remove_cvref_t<X>>::value;

// ---- creation ----

// An R x C tile with every element `value`.
template <class T, int R, int C>
Tile<T, R, C> full(const Block&, T value) {
  Tile<T, R, C> t;
  for (auto& x : t.v) x = value;
  return t;
}
template <class T, int R, int C>
Tile<T, R, C> zeros(const Block& blk) { return full<T, R, C>(blk, T(0)); }

// A tile of the same shape (and, on the GPU, the same distribution over threads) as `like`, every element
// `value`: the way to start a running value that combines with a reduction result.
template <class T, class U, int R, int C>
Tile<T, R, C> full_like(const Tile<U, R, C>&, T value) {
  Tile<T, R, C> t;
  for (auto& x : t.v) x = value;
  return t;
}

// An R x C int tile holding each element's row index (axis 0) or column index (axis 1).
template <int R, int C>
Tile<int, R, C> arange(const Block&, int axis) {
  Tile<int, R, C> t;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) t(r, c) = axis == 0 ? r : c;
  return t;
}

// The row (axis 0) or column (axis 1) index of each element of a tile shaped like `like`.
template <class T, int R, int C>
Tile<int, R, C> arange_like(const Tile<T, R, C>&, int axis) { return arange<R, C>(Block{}, axis); }

// ---- memory ----

// Reads the R x C tile whose first element is view(at.row, at.col). Elements outside the view's extents
// read as `pad`.
template <int R, int C, class T>
Tile<std::remove_const_t<T>, R, C> load(const Block&, const View2<T>& view, Coord at, float pad = 0.f) {
  using U = std::remove_const_t<T>;
  Tile<U, R, C> t;
  const U padv = convert_element<U>(pad);
  // Per row, the columns inside the view are one range: padding around it, a straight copy inside (the CPU
  // engine spends its time here).
  const int c_begin = int(std::clamp<int64_t>(-at.col, 0, C));
  const int c_end = int(std::clamp<int64_t>(view.extent[1] - at.col, c_begin, C));
  for (int r = 0; r < R; ++r) {
    const int64_t gr = at.row + r;
    U* out = &t(r, 0);
    if (gr < 0 || gr >= view.extent[0]) {
      std::fill(out, out + C, padv);
      continue;
    }
    std::fill(out, out + c_begin, padv);
    std::fill(out + c_end, out + C, padv);
    if (c_end == c_begin) continue;
    const T* first = view.data + gr * view.stride[0] + (at.col + c_begin) * view.stride[1];
    if (view.stride[1] == 1) std::copy(first, first + (c_end - c_begin), out + c_begin);
    else
      for (int c = c_begin; c < c_end; ++c) out[c] = first[(c - c_begin) * view.stride[1]];
  }
  return t;
}

// Writes the tile with its first element at view(at.row, at.col); elements outside the extents are dropped.
template <class T, class U, int R, int C>
void store(const Block&, const View2<T>& view, Coord at, const Tile<U, R, C>& t) {
  static_assert(std::is_same_v<T, U>, "store: the tile's element type must equal the view's: cast first");
  for (int r = 0; r < R; ++r) {
    const int64_t gr = at.row + r;
    if (gr < 0 || gr >= view.extent[0]) continue;
    for (int c = 0; c < C; ++c) {
      const int64_t gc = at.col + c;
      if (gc >= 0 && gc < view.extent[1]) view.data[gr * view.stride[0] + gc * view.stride[1]] = t(r, c);
    }
  }
}

// The hints (ColdEdges, ReadOnce: common.h) change only how the GPU compiles and issues the load.
template <int R, int C, class T, class... Hints>
  requires(sizeof...(Hints) > 0)
Tile<std::remove_const_t<T>, R, C> load(const Block& blk, const View2<T>& view, Coord at, float pad, Hints...) {
  static_assert(only_load_hints<Hints...>, "load: hints are ColdEdges and ReadOnce");
  return load<R, C>(blk, view, at, pad);
}
template <class T, class U, int R, int C>
void store(const Block& blk, const View2<T>& view, Coord at, const Tile<U, R, C>& t, ColdEdges) {
  store(blk, view, at, t);
}

// Keeps a float tile in slot `slot` of a scratch buffer of whole R x C slots, for the same kernel to read back
// with load_fragments (a split K's partial sums). The order inside a slot is the backend's own (the GPU keeps
// each thread's registers together); only load_fragments reads it.
template <int R, int C>
void store_fragments(const Block&, const View1<float>& scratch, int64_t slot, const Tile<float, R, C>& t) {
  assert((slot + 1) * (R * C) <= scratch.extent[0] && "the launcher sizes the scratch in whole slots");
  std::copy(t.v, t.v + R * C, scratch.data + slot * (R * C));
}
template <int R, int C>
Tile<float, R, C> load_fragments(const Block&, const Tile<float, R, C>&, const View1<float>& scratch, int64_t slot) {
  assert((slot + 1) * (R * C) <= scratch.extent[0] && "the launcher sizes the scratch in whole slots");
  Tile<float, R, C> t;
  std::copy(scratch.data + slot * (R * C), scratch.data + (slot + 1) * (R * C), t.v);
  return t;
}

// Adds the tile into global memory element by element, atomically with respect to other blocks.
template <class U, int R, int C>
void atomic_add(const Block&, const View2<float>& view, Coord at, const Tile<U, R, C>& t) {
  static_assert(std::is_same_v<U, float>, "atomic_add: float tiles into float memory");
  for (int r = 0; r < R; ++r) {
    const int64_t gr = at.row + r;
    if (gr < 0 || gr >= view.extent[0]) continue;
    for (int c = 0; c < C; ++c) {
      const int64_t gc = at.col + c;
      if (gc < 0 || gc >= view.extent[1]) continue;
      std::atomic_ref<float>(view.data[gr * view.stride[0] + gc * view.stride[1]]).fetch_add(t(r, c), std::memory_order_relaxed);
    }
  }
}

// ---- conversion ----

template <class To, class T, int R, int C>
Tile<To, R, C> cast(const Tile<T, R, C>& t) {
  Tile<To, R, C> out;
  for (int i = 0; i < R * C; ++i) out.v[i] = convert_element<To>(t.v[i]);
  return out;
}

}  // namespace tessera::tile::host
