// Host reductions, transpose and mma.
#pragma once
#include <limits>

#include "tessera/tile/host/math.h"

namespace tessera::tile::host {

namespace detail {
template <class T, int R, int C, class F>
Tile<T, R, 1> reduce_rows(const Tile<T, R, C>& a, T init, F f) {
  Tile<T, R, 1> out;
  for (int r = 0; r < R; ++r) {
    T acc = init;
    for (int c = 0; c < C; ++c) acc = f(acc, a(r, c));
    out(r, 0) = acc;
  }
  return out;
}
template <class T, int R, int C, class F>
Tile<T, 1, C> reduce_cols(const Tile<T, R, C>& a, T init, F f) {
  Tile<T, 1, C> out;
  for (int c = 0; c < C; ++c) {
    T acc = init;
    for (int r = 0; r < R; ++r) acc = f(acc, a(r, c));
    out(0, c) = acc;
  }
  return out;
}
template <class T> T lowest() { return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest(); }
template <class T> T highest() { return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max(); }
}  // namespace detail

// The columns summed in runs of chunk_width(C) = min(8, C) (a GPU thread's 16-byte access of 16-bit elements):
// an R x C / chunk_width(C) tile. A running sum of chunk sums holds one value per chunk (on the GPU one register
// per chunk, where an R x C accumulator holds eight), and its row_sum is the tile's row sum.
constexpr int chunk_width(int cols) { return cols < 8 ? cols : 8; }
template <class T, int R, int C>
Tile<T, R, C / chunk_width(C)> chunk_sums(const Tile<T, R, C>& a) {
  detail::require_arithmetic<T>();
  constexpr int W = chunk_width(C);
  Tile<T, R, C / W> out;
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < C / W; ++j) {
      T sum = a(r, j * W);
      for (int i = 1; i < W; ++i) sum = sum + a(r, j * W + i);
      out(r, j) = sum;
    }
  return out;
}

// Sums along each row (in order of increasing column): an R x 1 column vector.
template <class T, int R, int C>
Tile<T, R, 1> row_sum(const Tile<T, R, C>& a) {
  detail::require_arithmetic<T>();
  return detail::reduce_rows(a, T(0), [](T x, T y) { return x + y; });
}
// A running sum over the columns of a sequence of tiles, row by row: running_row_sums(like) starts it at 0 for
// tiles shaped like `like`, add_row_sums(sums, factor, t) makes it sums * factor + row_sum(t), and total(sums)
// reads it. On the host it is a row sum kept as it goes; on the GPU, where consumers hold a tile's columns in
// shares (Consumers::column_shares), each keeps the sum of its own columns and total() adds them up, once,
// where row_sum would exchange them on every update. add_row_sums also takes an R x 1 tile as the sum.
template <class T, int R>
struct RunningRowSums {
  Tile<T, R, 1> sums;
};
template <class T, int R, int C>
RunningRowSums<float, R> running_row_sums(const Tile<T, R, C>&) {
  return {full_like(Tile<float, R, 1>{}, 0.f)};
}
template <class T, int R, int C, class F>
void add_row_sums(RunningRowSums<float, R>& s, const F& factor, const Tile<T, R, C>& t) {
  s.sums = s.sums * factor + row_sum(t);
}
template <class T, int R, int C, class F>
void add_row_sums(Tile<float, R, 1>& sums, const F& factor, const Tile<T, R, C>& t) {
  sums = sums * factor + row_sum(t);
}
template <class T, int R>
Tile<T, R, 1> total(const RunningRowSums<T, R>& s) {
  return s.sums;
}

// Largest element of each row; -inf for float rows when C elements are all -inf. NaN is ignored
// unless every element is NaN (then the result is -inf).
template <class T, int R, int C>
Tile<T, R, 1> row_max(const Tile<T, R, C>& a) {
  detail::require_arithmetic<T>();
  return detail::reduce_rows(a, detail::lowest<T>(), [](T x, T y) { return y > x ? y : x; });
}
template <class T, int R, int C>
Tile<T, R, 1> row_min(const Tile<T, R, C>& a) {
  detail::require_arithmetic<T>();
  return detail::reduce_rows(a, detail::highest<T>(), [](T x, T y) { return y < x ? y : x; });
}
template <class T, int R, int C>
Tile<T, 1, C> col_sum(const Tile<T, R, C>& a) {
  detail::require_arithmetic<T>();
  return detail::reduce_cols(a, T(0), [](T x, T y) { return x + y; });
}
template <class T, int R, int C>
Tile<T, 1, C> col_max(const Tile<T, R, C>& a) {
  detail::require_arithmetic<T>();
  return detail::reduce_cols(a, detail::lowest<T>(), [](T x, T y) { return y > x ? y : x; });
}
template <class T, int R, int C>
Tile<T, 1, C> col_min(const Tile<T, R, C>& a) {
  detail::require_arithmetic<T>();
  return detail::reduce_cols(a, detail::highest<T>(), [](T x, T y) { return y < x ? y : x; });
}

// Column index of the largest element of each row; the smallest such index on ties; NaN is ignored (0 for an
// all-NaN row).
template <class T, int R, int C>
Tile<int, R, 1> row_argmax(const Tile<T, R, C>& a) {
  detail::require_arithmetic<T>();
  Tile<int, R, 1> out;
  for (int r = 0; r < R; ++r) {
    T best = detail::lowest<T>();
    int arg = -1;  // a row of -inf (or NaN and -inf) still has a largest element
    for (int c = 0; c < C; ++c)
      if (a(r, c) > best || (arg < 0 && a(r, c) == best)) { best = a(r, c); arg = c; }
    out(r, 0) = arg < 0 ? 0 : arg;
  }
  return out;
}
// Row index of the largest element of each column; the smallest such index on ties; NaN is ignored (0 for an
// all-NaN column).
template <class T, int R, int C>
Tile<int, 1, C> col_argmax(const Tile<T, R, C>& a) {
  detail::require_arithmetic<T>();
  Tile<int, 1, C> out;
  for (int c = 0; c < C; ++c) {
    T best = detail::lowest<T>();
    int arg = -1;
    for (int r = 0; r < R; ++r)
      if (a(r, c) > best || (arg < 0 && a(r, c) == best)) { best = a(r, c); arg = r; }
    out(0, c) = arg < 0 ? 0 : arg;
  }
  return out;
}

template <class T, int R, int C>
Tile<T, C, R> transpose(const Tile<T, R, C>& a) {
  Tile<T, C, R> out;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) out(c, r) = a(r, c);
  return out;
}

// acc += a @ b with products and sums in float, k in increasing order for each element.
template <class TA, class TB, int M, int N, int K>
void mma(Tile<float, M, N>& acc, const Tile<TA, M, K>& a, const Tile<TB, K, N>& b) {
  // Operands are widened once, then the loop runs m-k-n so the inner loop vectorises.
  static thread_local float fa[M * K], fb[K * N];
  for (int i = 0; i < M * K; ++i) fa[i] = convert_element<float>(a.v[i]);
  for (int i = 0; i < K * N; ++i) fb[i] = convert_element<float>(b.v[i]);
  for (int m = 0; m < M; ++m) {
    float* out = &acc.v[m * N];
    for (int k = 0; k < K; ++k) {
      const float x = fa[m * K + k];
      const float* row = &fb[k * N];
      for (int n = 0; n < N; ++n) out[n] += x * row[n];
    }
  }
}

// A zero M x N accumulator for mma over register tiles (on the GPU laid out for the tensor cores:
// cuda/fragment_mma.h).
template <int M, int N>
Tile<float, M, N> mma_accumulator(const Block& blk) { return full<float, M, N>(blk, 0.f); }

// acc += a @ b^T, b given as its rows [N, K]: mma with b transposed (the GPU skips the transposition).
template <class TA, class TB, int M, int N, int K>
void mma_nt(Tile<float, M, N>& acc, const Tile<TA, M, K>& a, const Tile<TB, N, K>& b) {
  mma(acc, a, transpose(b));
}

}  // namespace tessera::tile::host
