// CUDA reductions, transpose and mma. Threads that share a row combine by warp shuffles, then through
// shared memory when a row spans several warps. Every operation here is called by all threads of the block.
#pragma once
#include <cfloat>
#include <climits>
#include <cstring>

#include "tessera/tile/cuda/math.h"
#include "tessera/tile/cuda/warp_mma.h"

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
// Each chunk of a row summed where it lies (ChunkSums, layout.h); the row sum of such a tile is its parent's.
template <class T, int R, int C, int TH>
__device__ __forceinline__ Tile<T, ChunkSums<R, C, TH>> chunk_sums(const Tile<T, Blocked<R, C, TH>>& a) {
  using P = Blocked<R, C, TH>;
  detail::require_arithmetic<T>();
  Tile<T, ChunkSums<R, C, TH>> out;
#pragma unroll
  for (int k = 0; k < P::chunks; ++k) {
    T sum = a.v[k * P::V];
#pragma unroll
    for (int i = 1; i < P::V; ++i) sum = sum + a.v[k * P::V + i];
    out.v[k] = sum;
  }
  return out;
}
template <class T, int R, int C, int TH>
__device__ __forceinline__ Tile<T, RowSlice<R, C, TH>> row_sum(const Tile<T, ChunkSums<R, C, TH>>& a) {
  using P = Blocked<R, C, TH>;
  using S = RowSlice<R, C, TH>;
  detail::require_arithmetic<T>();
  Tile<T, S> out;
#pragma unroll
  for (int s = 0; s < S::size; ++s) out.v[s] = T(0);
#pragma unroll
  for (int k = 0; k < P::chunks; ++k) out.v[S::slot_of_chunk(k)] = out.v[S::slot_of_chunk(k)] + a.v[k];
  detail::group_reduce<T, S::size, S::group, TH>(out.v, T(0), detail::Sum{});
  return out;
}
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

// A running sum over the columns of a sequence of tiles, row by row (host/reduce.h has the contract):
// running_row_sums(like), add_row_sums(sums, factor, t) = sums * factor + row_sum(t), total(sums). Here, for
// every layout but column shares (hopper/wgmma.h, which keeps a share's own sums until total()), a row sum
// kept as it goes. SHARES: how many shares' sums total() adds up.
template <class Rows, int SHARES = 1>
struct RunningRowSums {
  Rows sums;
};
template <class T, class L>
__device__ __forceinline__ auto running_row_sums(const Tile<T, L>& like) {
  using Rows = decltype(row_sum(full_like(like, 0.f)));  // unevaluated: no reduction runs
  return RunningRowSums<Rows>{full_like(Rows{}, 0.f)};
}
template <class Rows, class F, class T, class L>
__device__ __forceinline__ void add_row_sums(RunningRowSums<Rows>& s, const F& factor, const Tile<T, L>& t) {
  s.sums = s.sums * factor + row_sum(t);
}
template <class T, class L, class F, class U, class LU>
__device__ __forceinline__ void add_row_sums(Tile<T, L>& sums, const F& factor, const Tile<U, LU>& t) {
  sums = sums * factor + row_sum(t);
}
template <class Rows>
__device__ __forceinline__ Rows total(const RunningRowSums<Rows>& s) {
  return s.sums;
}

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

namespace detail {
// The shape of the warp-level tensor-core form of mma (sm_80 and later, 16-bit a and b): a and b are written to
// shared memory as they are, each warp multiplies FM x FN fragments of 16 x 8 with ldmatrix and mma.sync, and the
// product comes back through the same shared memory into the accumulator's layout, PR rows at a time. The
// warps form a WM x WN grid over the M / 16 x N / 8 fragments of C; where there are fewer fragments than warps,
// some idle. Rows are padded by 16 bytes (8 columns of a and b, 8 of the fp32 product) so that the 8 rows an
// ldmatrix or a fragment store touches fall in different banks.
//
// The buffer is 4, 8 or 16 KB by size alone, whatever the shape and type, so the calls of one kernel share it:
// a kernel's shared memory is the sum of its calls' static buffers, and 16-bit products of two types or two
// shapes (a test's, an attention kernel's) would otherwise pass the 48 KB a block may declare.
template <int M, int N, int K, int TH, bool B_NK = false>
struct WarpMma {
  static constexpr int W = TH / 32, MF = M / 16, NF = N / 8;
  static constexpr int WM = MF < 1 ? 1 : MF < W ? MF : W;
  static constexpr int WN = NF < 1 ? 1 : W / WM < NF ? W / WM : NF;
  static constexpr int FM = MF / WM, FN = NF / WN;
  // b as [K][N], or as its rows [N][K] (B_NK: mma_nt).
  static constexpr int a_stride = K + 8, b_stride = B_NK ? K + 8 : N + 8, p_stride = N + 8;
  static constexpr int operand_bytes = (M * a_stride + (B_NK ? N : K) * b_stride) * 2;
  static constexpr int bytes = operand_bytes <= 4096 ? 4096 : operand_bytes <= 8192 ? 8192 : 16384;
  static constexpr int pass_rows() {
    int rows = M;
    while (rows > 16 && rows * p_stride * 4 > bytes) rows /= 2;
    return rows;
  }
  static constexpr int PR = pass_rows();
  // Whole fragments, at most 64 accumulator registers a thread, operands that fit the largest buffer.
  static constexpr bool fits = M >= 16 && N >= 8 && K >= 16 && M % 16 == 0 && N % 8 == 0 && K % 16 == 0 &&
                               FM * FN * 4 <= 64 && operand_bytes <= 16384 && PR * p_stride * 4 <= bytes;
};

// The shared buffer of every warp-level mma of BYTES in a kernel.
template <int BYTES>
__device__ __forceinline__ unsigned char* warp_mma_buffer() {
  __shared__ alignas(16) unsigned char buffer[BYTES];
  return buffer;
}

// Element (row, col) of each chunk of 8 elements of a Blocked tile of 16-bit elements, written to a shared
// [rows][STRIDE] array with one 16-byte store.
template <int STRIDE, class T, int R, int C, int TH>
__device__ __forceinline__ void stage_rows16(T* smem, const Tile<T, Blocked<R, C, TH>>& t) {
  using L = Blocked<R, C, TH>;
  static_assert(L::V == 8 && sizeof(T) == 2, "16-byte chunks of 16-bit elements");
#pragma unroll
  for (int k = 0; k < L::chunks; ++k) {
    if (!L::owner(k * L::V)) continue;
    uint4 chunk;
    memcpy(&chunk, &t.v[k * L::V], 16);
    *reinterpret_cast<uint4*>(smem + L::row(k * L::V) * STRIDE + L::col(k * L::V)) = chunk;
  }
}

// acc += a @ b, b [K, N]; B_NK: acc += a @ b^T, b [N, K].
template <bool B_NK, class T, int M, int N, int K, int TH, class LB>
__device__ __forceinline__ void warp_mma(Tile<float, Blocked<M, N, TH>>& acc, const Tile<T, Blocked<M, K, TH>>& a,
                                         const Tile<T, LB>& b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using S = WarpMma<M, N, K, TH, B_NK>;
  using LC = Blocked<M, N, TH>;
  unsigned char* const buffer = warp_mma_buffer<S::bytes>();
  T* const sa = reinterpret_cast<T*>(buffer);
  T* const sb = sa + M * S::a_stride;
  float* const product = reinterpret_cast<float*>(buffer);
  block_sync();  // the last call's readers of the buffer are done
  stage_rows16<S::a_stride>(sa, a);
  stage_rows16<S::b_stride>(sb, b);
  block_sync();
  const int w = warp(), l = lane();
  const bool active = w < S::WM * S::WN;
  const int row0 = (w % S::WM) * S::FM * 16, col0 = (w / S::WM) * S::FN * 8;
  float d[S::FM][S::FN][4];
#pragma unroll
  for (int i = 0; i < S::FM; ++i)
#pragma unroll
    for (int j = 0; j < S::FN; ++j) d[i][j][0] = d[i][j][1] = d[i][j][2] = d[i][j][3] = 0.f;
  if (active) {
#pragma unroll
    for (int k0 = 0; k0 < K; k0 += 16) {
      uint32_t af[S::FM][4];
      // a: lane l addresses row l % 16 at column k0 + 8 (l / 16): matrices rows 0-7 / 8-15 x k 0-7 / 8-15.
#pragma unroll
      for (int i = 0; i < S::FM; ++i)
        warp::ldmatrix_x4<false>(af[i], uint32_t(__cvta_generic_to_shared(sa + (row0 + 16 * i + l % 16) * S::a_stride + k0 + 8 * (l / 16))));
      // b [K][N], transposed by ldmatrix: lane l addresses row k0 + l % 16 at column n + 8 (l / 16). b [N][K], as
      // it is: lane l addresses row n + l % 8 + 8 (l / 16) at column k0 + 8 ((l / 8) % 2). Either way one x4
      // holds the k pairs of two 8-column fragments (an x2, lanes 0-15, those of one).
#pragma unroll
      for (int j = 0; j < S::FN; j += 2) {
        const T* row = B_NK ? sb + (col0 + 8 * j + l % 8) * S::b_stride + k0 + 8 * ((l / 8) % 2)
                            : sb + (k0 + l % 16) * S::b_stride + col0 + 8 * j;
        if constexpr (S::FN % 2 == 0) {
          uint32_t bf[4];
          warp::ldmatrix_x4<!B_NK>(bf, uint32_t(__cvta_generic_to_shared(row + (B_NK ? 8 * S::b_stride : 8) * (l / 16))));
#pragma unroll
          for (int i = 0; i < S::FM; ++i) {
            warp::mma_m16n8k16<T>(d[i][j], af[i], bf[0], bf[1]);
            warp::mma_m16n8k16<T>(d[i][j + 1], af[i], bf[2], bf[3]);
          }
        } else {
          uint32_t bf[2];
          warp::ldmatrix_x2<!B_NK>(bf, uint32_t(__cvta_generic_to_shared(row)));
#pragma unroll
          for (int i = 0; i < S::FM; ++i) warp::mma_m16n8k16<T>(d[i][j], af[i], bf[0], bf[1]);
        }
      }
    }
  }
  // The product, PR rows at a time, over a and b once every warp is done with them (the first barrier).
#pragma unroll
  for (int r0 = 0; r0 < M; r0 += S::PR) {
    block_sync();
    if (active) {
#pragma unroll
      for (int i = 0; i < S::FM; ++i) {
        const int r = row0 + 16 * i;  // the fragment's first row: a fragment lies in one pass (PR >= 16)
        if (r < r0 || r >= r0 + S::PR) continue;
#pragma unroll
        for (int j = 0; j < S::FN; ++j) {
          float* p = product + (r - r0 + l / 4) * S::p_stride + col0 + 8 * j + 2 * (l % 4);
          *reinterpret_cast<float2*>(p) = make_float2(d[i][j][0], d[i][j][1]);
          *reinterpret_cast<float2*>(p + 8 * S::p_stride) = make_float2(d[i][j][2], d[i][j][3]);
        }
      }
    }
    block_sync();
#pragma unroll
    for (int k = 0; k < LC::size / LC::V; ++k) {
      const int r = LC::row(k * LC::V);
      if (r < r0 || r >= r0 + S::PR) continue;
      const float* p = product + (r - r0) * S::p_stride + LC::col(k * LC::V);
      if constexpr (LC::V % 4 == 0) {
#pragma unroll
        for (int i = 0; i < LC::V; i += 4) {
          const float4 q = *reinterpret_cast<const float4*>(p + i);
          acc.v[k * LC::V + i] += q.x;
          acc.v[k * LC::V + i + 1] += q.y;
          acc.v[k * LC::V + i + 2] += q.z;
          acc.v[k * LC::V + i + 3] += q.w;
        }
      } else {
#pragma unroll
        for (int i = 0; i < LC::V; ++i) acc.v[k * LC::V + i] += p[i];
      }
    }
  }
#else
  (void)acc; (void)a; (void)b; __trap();
#endif
}

// Whether mma(acc, a, b) takes the warp-level tensor-core form: 16-bit a and b of one type, blocked tiles, and
// a shape WarpMma fits.
// B_NK: b is given as its rows, [N, K].
template <class TA, class LA, class TB, class LB, class LC, bool B_NK = false>
constexpr bool warp_mma_applies() {
  constexpr int M = LA::rows, K = LA::cols, N = B_NK ? LB::rows : LB::cols, TH = LC::threads;
  using BLayout = std::conditional_t<B_NK, Blocked<N, K, TH>, Blocked<K, N, TH>>;
  if constexpr (!std::is_same_v<TA, TB> || !(std::is_same_v<TA, bf16> || std::is_same_v<TA, f16>)) return false;
  else if constexpr (!std::is_same_v<LA, Blocked<M, K, TH>> || !std::is_same_v<LB, BLayout> ||
                     !std::is_same_v<LC, Blocked<M, N, TH>>) return false;
  else return WarpMma<M, N, K, TH, B_NK>::fits;
}

// acc += a @ b with both operands staged in shared memory as float, each thread computing its own accumulator
// elements: any types and layouts, any GPU.
template <class TA, class LA, class TB, class LB, class LC>
__device__ __forceinline__ void scalar_mma(Tile<float, LC>& acc, const Tile<TA, LA>& a, const Tile<TB, LB>& b) {
  constexpr int M = LA::rows, K = LA::cols, N = LB::cols;
  __shared__ float sa[M][K + 1];
  __shared__ float sb[K][N + 1];
  block_sync();
  stage<1>(sa, a);
  stage<1>(sb, b);
  block_sync();
#pragma unroll
  for (int e = 0; e < LC::size; ++e) {
    const int r = LC::row(e), c = LC::col(e);
    float s = acc.v[e];
    for (int k = 0; k < K; ++k) s += sa[r][k] * sb[k][c];
    acc.v[e] = s;
  }
}
}  // namespace detail


// acc += a @ b, products and sums in float. On sm_80 and later, 16-bit a and b of one type in blocked tiles take
// the warp-level tensor cores (detail::warp_mma); anything else, or a shape too large for its shared buffer,
// takes detail::scalar_mma. The Hopper kernels' shared and accumulator tiles have their own forms (cuda/hopper).
template <class TA, class LA, class TB, class LB, class LC>
__device__ __forceinline__ void mma(Tile<float, LC>& acc, const Tile<TA, LA>& a, const Tile<TB, LB>& b) {
  static_assert(LB::rows == LA::cols && LC::rows == LA::rows && LC::cols == LB::cols,
                "mma: shapes must be (M,K) x (K,N) -> (M,N)");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr bool tensor_cores = detail::warp_mma_applies<TA, LA, TB, LB, LC>();
#else
  constexpr bool tensor_cores = false;
#endif
  if constexpr (tensor_cores) detail::warp_mma<false>(acc, a, b);
  else detail::scalar_mma(acc, a, b);
}

// acc += a @ b^T with b given as its rows, [N, K] (a weight as nn.Linear keeps it, keys against queries): the
// same as mma(acc, a, transpose(b)), without the transposition's round trip through shared memory where the
// tensor-core form applies.
template <class TA, class LA, class TB, class LB, class LC>
__device__ __forceinline__ void mma_nt(Tile<float, LC>& acc, const Tile<TA, LA>& a, const Tile<TB, LB>& b) {
  static_assert(LB::cols == LA::cols && LC::rows == LA::rows && LC::cols == LB::rows,
                "mma_nt: shapes must be (M,K) x (N,K)^T -> (M,N)");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr bool tensor_cores = detail::warp_mma_applies<TA, LA, TB, LB, LC, true>();
#else
  constexpr bool tensor_cores = false;
#endif
  if constexpr (tensor_cores) detail::warp_mma<true>(acc, a, b);
  else mma(acc, a, transpose(b));
}

}  // namespace tessera::tile::cuda
