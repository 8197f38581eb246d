// CUDA gather and scatter of rows by index; the contract is host/gather.h's. The row indices are shared
// through shared memory (any layout of the R x 1 index tile works), then each thread moves the chunks of
// the tile it holds, 16 bytes at a time where the row is unit-stride and aligned.
#pragma once
#include "tessera/tile/cuda/hopper/wgmma.h"
#include "tessera/tile/cuda/reduce.h"

namespace tessera::tile::cuda {

namespace detail {
// The offset of row n's column 0 in a rank-3 view seen as rows (row n is plane n / extent[1], row n %
// extent[1]); n inside.
template <class T>
__device__ __forceinline__ int64_t row_start(const View3<T>& view, int64_t n) {
  return (n / view.extent[1]) * view.stride[0] + (n % view.extent[1]) * view.stride[1];
}

template <class T>
__device__ __forceinline__ int64_t row_element_offset(const View3<T>& view, int64_t n, int64_t c) {
  const int64_t rows = view.extent[0] * view.extent[1];
  if (n < 0 || n >= rows || c < 0 || c >= view.extent[2]) return -1;
  return row_start(view, n) + c * view.stride[2];
}

// Rows first + i of a rank-3 view seen as rows (row n is plane n / extent[1], row n % extent[1]), for the
// small offsets i of one tile. One 64-bit division splits `first` (the same in every thread); the remainder plus
// i is then divided by extent[1] with a multiply-high by a precomputed reciprocal (division by an invariant
// integer), branch-free, so the compiler computes each row once rather than once per element: a division per
// element is a call or a branch each, and made the straight-line prologue of a kernel longer than its loop.
// i < 2^16, so a remainder plus i stays below 2^32 when extent[1] <= 2^31, and below 2 extent[1] otherwise.
template <class T>
struct RowsFrom {
  const View3<T>& view;
  int64_t first, plane0, row0;
  uint32_t magic = 0, shift1 = 0, shift2 = 0;
  bool huge;  // extent[1] > 2^31
  __device__ __forceinline__ RowsFrom(const View3<T>& v, int64_t first_row) : view(v), first(first_row) {
    const int64_t e1 = v.extent[1];
    plane0 = e1 > 0 ? first_row / e1 : 0;
    row0 = first_row - plane0 * e1;
    huge = e1 > (int64_t(1) << 31);
    const uint32_t d = e1 > 0 && !huge ? uint32_t(e1) : 1u;
    const uint32_t l = d > 1 ? 32 - __clz(d - 1) : 0;  // ceil(log2 d)
    magic = uint32_t((((uint64_t(1) << l) - d) << 32) / d + 1);
    shift1 = l > 0 ? 1 : 0;
    shift2 = l > 0 ? l - 1 : 0;
  }
  __device__ __forceinline__ bool row_inside(int i) const {
    const int64_t n = first + i;
    return n >= 0 && n < view.extent[0] * view.extent[1];
  }
  __device__ __forceinline__ bool inside(int i, int64_t c) const { return row_inside(i) && c >= 0 && c < view.extent[2]; }
  // The offset of element (first + i, c), meaningful where inside(i, c).
  __device__ __forceinline__ int64_t offset(int i, int64_t c) const {
    const int64_t e1 = view.extent[1], local = row0 + i;
    const uint32_t n = uint32_t(local), high = __umulhi(magic, n);
    const int64_t planes = huge ? int64_t(local >= e1) : int64_t((high + ((n - high) >> shift1)) >> shift2);
    return (plane0 + planes) * view.stride[0] + (local - planes * e1) * view.stride[1] + c * view.stride[2];
  }
};

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
    const U* src = row_in ? view.data + detail::row_start(view, n) + gc * view.stride[2] : nullptr;
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
  if constexpr (std::is_same_v<L, Blocked<L::rows, L::cols, TH>>) {
    // Chunk by chunk, like gather_rows: the row is split once per chunk and an inside, unit-stride, aligned
    // chunk is one vector store (per element, the splitting made a two-row kv-cache append ~2,700
    // instructions a warp).
    using Copy = detail::chunk_copy<U, L::V>;
    if (!L::owner(0)) return;
    const int64_t nrows = view.extent[0] * view.extent[1];
#pragma unroll
    for (int k = 0; k < L::chunks; ++k) {
      const int ch = L::chunk(k);
      const int64_t n = idx[ch / L::nc];
      if (n < 0 || n >= nrows) continue;
      const int64_t gc = col0 + (ch % L::nc) * L::V;
      T* row = view.data + detail::row_start(view, n);
      if (gc >= 0 && gc + L::V <= view.extent[2] && view.stride[2] == 1 && Copy::aligned(row + gc)) {
        Copy::run(row + gc, &t.v[k * L::V]);
      } else {
#pragma unroll
        for (int i = 0; i < L::V; ++i)
          if (gc + i >= 0 && gc + i < view.extent[2]) row[(gc + i) * view.stride[2]] = t.v[k * L::V + i];
      }
    }
  } else {
#pragma unroll
    for (int e = 0; e < L::size; ++e) {
      if (!L::owner(e)) continue;
      const int64_t off = detail::row_element_offset(view, idx[L::row(e)], col0 + L::col(e));
      if (off >= 0) view.data[off] = t.v[e];
    }
  }
}

namespace detail {
template <class V, class T, class L>
__device__ __forceinline__ Tile<V, L> load_elements(const View3<T>& view, Coord at, float pad) {
  Tile<V, L> out;
  const V padv = convert_element<V>(pad);
  const RowsFrom<T> rows(view, at.row);
#pragma unroll
  for (int e = 0; e < L::size; ++e) {
    const int i = L::row(e);
    const int64_t c = at.col + L::col(e), off = rows.offset(i, c);
    out.v[e] = rows.inside(i, c) ? view.data[off] : padv;
  }
  return out;
}
template <class T, class L>
__device__ __forceinline__ void store_elements(const View3<T>& view, Coord at, const Tile<T, L>& t) {
  const RowsFrom<T> rows(view, at.row);
#pragma unroll
  for (int e = 0; e < L::size; ++e) {
    const int i = L::row(e);
    const int64_t c = at.col + L::col(e), off = rows.offset(i, c);
    if (L::owner(e) && rows.inside(i, c)) view.data[off] = t.v[e];
  }
}
}  // namespace detail

// Rank-3 views seen as rows (host/gather.h): a tile laid out like `like` read from row at.row, column at.col;
// `pad` outside.
template <class T, class U, class L, int TH>
__device__ __forceinline__ Tile<std::remove_const_t<T>, L> load_like(const Block<TH>&, const Tile<U, L>&, const View3<T>& view,
                                                                     Coord at, float pad = 0.f) {
  return detail::load_elements<std::remove_const_t<T>, T, L>(view, at, pad);
}

// The tile written from row at.row, column at.col of a rank-3 view seen as rows; outside elements dropped.
template <class T, class U, class L, int TH>
__device__ __forceinline__ void store(const Block<TH>&, const View3<T>& view, Coord at, const Tile<U, L>& t) {
  static_assert(std::is_same_v<T, U>, "store: the tile's element type must equal the view's: cast first");
  detail::store_elements(view, at, t);
}

// Accumulator tiles (hopper/wgmma.h) on rank-3 views seen as rows: a thread's elements lie in two rows of each
// 64-row slice, so each row is split once and its adjacent column pairs move as one access when the whole
// column range is inside, unit-stride and aligned. Element by element, a decode kernel's query load and
// partial-result stores were ~100 KB of straight-line code, fetched once per block.
namespace detail {
template <class T>
__device__ __forceinline__ bool pairs_fit(const View3<T>& view, int64_t col0, int cols) {
  return pairs_aligned(view, col0) && col0 >= 0 && col0 + cols <= view.extent[2];
}

// Calls f(e, row) for each row a thread holds of accumulator tile L at `at`: its elements e + 4j + p (j <
// N / 8, p < 2) are the pair at row + 8j; row is null where the row lies outside the view.
template <class L, class T, class F>
__device__ __forceinline__ void for_each_accumulator_row(const View3<T>& view, Coord at, F&& f) {
  const RowsFrom<T> rows(view, at.row);
#pragma unroll
  for (int e0 = 0; e0 < L::size; e0 += L::per_slice)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int e = e0 + 2 * h, i = L::row(e);
      f(e, rows.row_inside(i) ? view.data + rows.offset(i, at.col + L::col(e)) : nullptr);
    }
}
}  // namespace detail

namespace detail {
// An accumulator-layout tile (L: WgmmaAcc or a layout with its element order) read from a rank-3 view seen as
// rows, column pairs as one access each where the view allows. 16-bit pairs move as one 32-bit word, padded as
// a word: selected half by half, the pad cost two byte permutes per pair (a decode prologue's 161 a warp).
template <class L, class T>
__device__ __forceinline__ Tile<std::remove_const_t<T>, L> load_accumulator(const View3<T>& view, Coord at, float pad) {
  using V = std::remove_const_t<T>;
  constexpr int N = L::cols;
  if (!pairs_fit(view, at.col, N)) return load_elements<V, T, L>(view, at, pad);
  Tile<V, L> out;
  const V padv = convert_element<V>(pad);
  for_each_accumulator_row<L>(view, at, [&](int e, const T* row) {
#pragma unroll
    for (int j = 0; j < N / 8; ++j) {
      if constexpr (sizeof(V) == 2) {
        uint32_t word;
        const pair_of<V> pad_pair{padv, padv};
        memcpy(&word, &pad_pair, sizeof(word));
        if (row) word = *reinterpret_cast<const uint32_t*>(row + 8 * j);
        memcpy(&out.v[e + 4 * j], &word, sizeof(word));
      } else {
        const auto pr = row ? *reinterpret_cast<const pair_of<V>*>(row + 8 * j) : pair_of<V>{padv, padv};
        out.v[e + 4 * j] = pr.x;
        out.v[e + 4 * j + 1] = pr.y;
      }
    }
  });
  return out;
}
}  // namespace detail

template <class T, class U, int M, int N, int C, int TH>
__device__ __forceinline__ Tile<std::remove_const_t<T>, WgmmaAcc<M, N, C>> load_like(const Block<TH>&,
                                                                                   const Tile<U, WgmmaAcc<M, N, C>>&,
                                                                                   const View3<T>& view, Coord at,
                                                                                   float pad = 0.f) {
  return detail::load_accumulator<WgmmaAcc<M, N, C>>(view, at, pad);
}

// (L: WgmmaAcc or WgmmaColumnShares, whose rows each hold per_slice / 4 column pairs of the thread.)
template <class T, class U, class L, int TH>
  requires requires { L::per_slice; }
__device__ __forceinline__ void store(const Block<TH>&, const View3<T>& view, Coord at, const Tile<U, L>& t) {
  static_assert(std::is_same_v<T, U>, "store: the tile's element type must equal the view's: cast first");
  if (!detail::pairs_fit(view, at.col, L::cols)) return detail::store_elements(view, at, t);
  detail::for_each_accumulator_row<L>(view, at, [&](int e, T* row) {
    if (!row) return;
#pragma unroll
    for (int j = 0; j < L::per_slice / 4; ++j)
      *reinterpret_cast<detail::pair_of<T>*>(row + 8 * j) = {t.v[e + 4 * j], t.v[e + 4 * j + 1]};
  });
}

}  // namespace tessera::tile::cuda
