// CUDA reductions, transpose and mma. Threads that share a row combine by warp shuffles, then through
// shared memory when a row spans several warps. Every operation here is called by all threads of the block.
#pragma once
#include <cfloat>
#include <climits>

#include "tessera/tile/cuda/math.h"

namespace tessera::tile::cuda {

namespace detail {
__device__ __forceinline__ int lane() { return thread_rank() & 31; }
__device__ __forceinline__ int warp() { return thread_rank() >> 5; }
__device__ __forceinline__ void block_sync() { __syncthreads(); }

template <class T> __device__ __forceinline__ T lowest() {
  if constexpr (std::is_same_v<T, float>) return -__int_as_float(0x7f800000);
  else return INT_MIN;
}
template <class T> __device__ __forceinline__ T highest() {
  if constexpr (std::is_same_v<T, float>) return __int_as_float(0x7f800000);
  else return INT_MAX;
}

// Combines (value, index) pairs: the larger value wins, the smaller index on ties; NaN never wins.
template <class T>
__device__ __forceinline__ void argmax_step(T& v, int& i, T ov, int oi) {
  if (ov > v || (ov == v && oi < i)) { v = ov; i = oi; }
}

// Reduces each slot of `out` over the `group` consecutive threads that share it.
template <class T, int SLOTS, int GROUP, int TH, class F>
__device__ __forceinline__ void group_reduce(T (&out)[SLOTS], T identity, F f) {
  if constexpr (GROUP > 1) {
    constexpr int G = GROUP < 32 ? GROUP : 32;
#pragma unroll
    for (int s = 0; s < SLOTS; ++s)
#pragma unroll
      for (int off = G / 2; off > 0; off /= 2) out[s] = f(out[s], __shfl_xor_sync(0xffffffffu, out[s], off));
    if constexpr (GROUP > 32) {
      constexpr int W = TH / 32, WG = GROUP / 32;
      __shared__ T partial[SLOTS][W];
      block_sync();
      if (lane() == 0)
#pragma unroll
        for (int s = 0; s < SLOTS; ++s) partial[s][warp()] = out[s];
      block_sync();
      const int first = (thread_rank() / GROUP) * WG;
#pragma unroll
      for (int s = 0; s < SLOTS; ++s) {
        T acc = identity;
#pragma unroll
        for (int w = 0; w < WG; ++w) acc = f(acc, partial[s][first + w]);
        out[s] = acc;
      }
    }
  }
}

template <class T, int R, int C, int TH, class F>
__device__ __forceinline__ Tile<T, RowSlice<R, C, TH>> reduce_rows(const Tile<T, Blocked<R, C, TH>>& a, T identity, F f) {
  using P = Blocked<R, C, TH>;
  using S = RowSlice<R, C, TH>;
  require_arithmetic<T>();
  Tile<T, S> out;
#pragma unroll
  for (int s = 0; s < S::size; ++s) out.v[s] = identity;
#pragma unroll
  for (int k = 0; k < P::chunks; ++k)
#pragma unroll
    for (int i = 0; i < P::V; ++i) out.v[S::slot_of_chunk(k)] = f(out.v[S::slot_of_chunk(k)], a.v[k * P::V + i]);
  group_reduce<T, S::size, S::group, TH>(out.v, identity, f);
  return out;
}

template <class T, int R, int C, int TH, class F>
__device__ __forceinline__ Tile<T, Blocked<1, C, TH>> reduce_cols(const Tile<T, Blocked<R, C, TH>>& a, T identity, F f) {
  using P = Blocked<R, C, TH>;
  using O = Blocked<1, C, TH>;
  require_arithmetic<T>();
  Tile<T, O> out;
#pragma unroll
  for (int e = 0; e < O::size; ++e) out.v[e] = identity;
#pragma unroll
  for (int e = 0; e < P::size; ++e) {
    const int j = broadcast_index<O, P>(e);
    out.v[j] = f(out.v[j], a.v[e]);
  }
  if constexpr (P::nc < TH) {
    // Threads t, t + nc, t + 2 nc ... hold the same columns of different rows; replicas are not counted.
    constexpr int groups = (P::replicated ? P::N : TH) / P::nc;
    if constexpr (groups > 1) {
      __shared__ T partial[groups][C];
      block_sync();
      if (thread_rank() < groups * P::nc)
#pragma unroll
        for (int e = 0; e < O::size; ++e) partial[thread_rank() / P::nc][O::col(e)] = out.v[e];
      block_sync();
#pragma unroll
      for (int e = 0; e < O::size; ++e) {
        T acc = identity;
#pragma unroll
        for (int g = 0; g < groups; ++g) acc = f(acc, partial[g][O::col(e)]);
        out.v[e] = acc;
      }
    }
  }
  return out;
}

struct Sum { template <class T> __device__ T operator()(T x, T y) const { return x + y; } };
// NaN is ignored, as on the host: the float forms are one min/max instruction each (a compare and a select
// otherwise), which a softmax or an argmax-free max pays for every element.
struct Max {
  template <class T> __device__ T operator()(T x, T y) const {
    if constexpr (std::is_same_v<T, float>) return fmaxf(x, y);
    else return y > x ? y : x;
  }
};
struct Min {
  template <class T> __device__ T operator()(T x, T y) const {
    if constexpr (std::is_same_v<T, float>) return fminf(x, y);
    else return y < x ? y : x;
  }
};
}  // namespace detail

template <class T, int R, int C, int TH>
__device__ __forceinline__ auto row_sum(const Tile<T, Blocked<R, C, TH>>& a) { return detail::reduce_rows(a, T(0), detail::Sum{}); }
template <class T, int R, int C, int TH>
__device__ __forceinline__ auto row_max(const Tile<T, Blocked<R, C, TH>>& a) { return detail::reduce_rows(a, detail::lowest<T>(), detail::Max{}); }
template <class T, int R, int C, int TH>
__device__ __forceinline__ auto row_min(const Tile<T, Blocked<R, C, TH>>& a) { return detail::reduce_rows(a, detail::highest<T>(), detail::Min{}); }
template <class T, int R, int C, int TH>
__device__ __forceinline__ auto col_sum(const Tile<T, Blocked<R, C, TH>>& a) { return detail::reduce_cols(a, T(0), detail::Sum{}); }
template <class T, int R, int C, int TH>
__device__ __forceinline__ auto col_max(const Tile<T, Blocked<R, C, TH>>& a) { return detail::reduce_cols(a, detail::lowest<T>(), detail::Max{}); }
template <class T, int R, int C, int TH>
__device__ __forceinline__ auto col_min(const Tile<T, Blocked<R, C, TH>>& a) { return detail::reduce_cols(a, detail::highest<T>(), detail::Min{}); }

// Column index of each row's largest element, the smallest on ties.
template <class T, int R, int C, int TH>
__device__ __forceinline__ Tile<int, RowSlice<R, C, TH>> row_argmax(const Tile<T, Blocked<R, C, TH>>& a) {
  using P = Blocked<R, C, TH>;
  using S = RowSlice<R, C, TH>;
  detail::require_arithmetic<T>();
  T best[S::size];
  int arg[S::size];
#pragma unroll
  for (int s = 0; s < S::size; ++s) { best[s] = detail::lowest<T>(); arg[s] = C; }
#pragma unroll
  for (int e = 0; e < P::size; ++e) {
    const int s = S::slot_of_chunk(e / P::V);
    detail::argmax_step(best[s], arg[s], a.v[e], P::col(e));
  }
  constexpr int G = S::group;
  if constexpr (G > 1) {
    constexpr int GW = G < 32 ? G : 32;
#pragma unroll
    for (int s = 0; s < S::size; ++s)
#pragma unroll
      for (int off = GW / 2; off > 0; off /= 2) {
        const T ov = __shfl_xor_sync(0xffffffffu, best[s], off);
        const int oi = __shfl_xor_sync(0xffffffffu, arg[s], off);
        detail::argmax_step(best[s], arg[s], ov, oi);
      }
    if constexpr (G > 32) {
      constexpr int W = TH / 32, WG = G / 32;
      __shared__ T pv[S::size][W];
      __shared__ int pi[S::size][W];
      detail::block_sync();
      if (detail::lane() == 0)
#pragma unroll
        for (int s = 0; s < S::size; ++s) { pv[s][detail::warp()] = best[s]; pi[s][detail::warp()] = arg[s]; }
      detail::block_sync();
      const int first = (thread_rank() / G) * WG;
#pragma unroll
      for (int s = 0; s < S::size; ++s) {
        best[s] = detail::lowest<T>();
        arg[s] = C;
#pragma unroll
        for (int w = 0; w < WG; ++w) detail::argmax_step(best[s], arg[s], pv[s][first + w], pi[s][first + w]);
      }
    }
  }
  Tile<int, S> out;
#pragma unroll
  for (int s = 0; s < S::size; ++s) out.v[s] = arg[s] == C ? 0 : arg[s];  // all-NaN row: 0, as on the host
  return out;
}

namespace detail {
// Writes a tile into a shared R x (C + PAD) array, element (r, c) at [r][c].
template <int PAD, class T, class L, class S>
__device__ __forceinline__ void stage(S (&smem)[L::rows][L::cols + PAD], const Tile<T, L>& t) {
#pragma unroll
  for (int e = 0; e < L::size; ++e)
    if (L::owner(e)) smem[L::row(e)][L::col(e)] = convert_element<S>(t.v[e]);
}
}  // namespace detail

// Row index of each column's largest element, the smallest on ties.
template <class T, int R, int C, int TH>
__device__ __forceinline__ Tile<int, Blocked<1, C, TH>> col_argmax(const Tile<T, Blocked<R, C, TH>>& a) {
  using P = Blocked<R, C, TH>;
  using O = Blocked<1, C, TH>;
  __shared__ T smem[R][C + 1];
  detail::block_sync();
  detail::stage<1>(smem, a);
  detail::block_sync();
  Tile<int, O> out;
#pragma unroll
  for (int e = 0; e < O::size; ++e) {
    T best = detail::lowest<T>();
    int arg = R;
    for (int r = 0; r < R; ++r) detail::argmax_step(best, arg, smem[r][O::col(e)], r);
    out.v[e] = arg == R ? 0 : arg;  // all-NaN column: 0, as on the host
  }
  (void)sizeof(P);
  return out;
}

template <class T, int R, int C, int TH>
__device__ __forceinline__ Tile<T, Blocked<C, R, TH>> transpose(const Tile<T, Blocked<R, C, TH>>& a) {
  using O = Blocked<C, R, TH>;
  __shared__ T smem[R][C + 1];
  detail::block_sync();
  detail::stage<1>(smem, a);
  detail::block_sync();
  Tile<T, O> out;
#pragma unroll
  for (int e = 0; e < O::size; ++e) out.v[e] = smem[O::col(e)][O::row(e)];
  return out;
}

// acc += a @ b, products and sums in float. This first version stages both operands in shared memory and
// each thread computes its own accumulator elements; the tensor-core paths replace it per architecture.
template <class TA, class LA, class TB, class LB, class LC>
__device__ __forceinline__ void mma(Tile<float, LC>& acc, const Tile<TA, LA>& a, const Tile<TB, LB>& b) {
  constexpr int M = LA::rows, K = LA::cols, N = LB::cols;
  static_assert(LB::rows == K && LC::rows == M && LC::cols == N, "mma: shapes must be (M,K) x (K,N) -> (M,N)");
  __shared__ float sa[M][K + 1];
  __shared__ float sb[K][N + 1];
  detail::block_sync();
  detail::stage<1>(sa, a);
  detail::stage<1>(sb, b);
  detail::block_sync();
#pragma unroll
  for (int e = 0; e < LC::size; ++e) {
    const int r = LC::row(e), c = LC::col(e);
    float s = acc.v[e];
    for (int k = 0; k < K; ++k) s += sa[r][k] * sb[k][c];
    acc.v[e] = s;
  }
}

}  // namespace tessera::tile::cuda
