// Sliced tiles (the contract is host/slices.h's): each warp of the C consumer warpgroups multiplies its own
// 16-row slice of a 64 C-row accumulator-layout tile against its own slice of a shared tile, on the warp-level
// tensor-core instruction (mma.sync m16n8k16, operands from shared memory through ldmatrix), and then the
// 4 C slices are combined through shared memory.
//
// Slice s is warp s of the consumers: in WgmmaAcc<64 C, N, C> warp w of warpgroup g already holds rows
// [64 g + 16 w, 64 g + 16 w + 16), in the fragment layout of mma.sync (lane l: rows l / 4 and l / 4 + 8, column
// pairs 8 j + 2 (l % 4)), so a sliced tile is an ordinary accumulator tile and every elementwise operation and
// row reduction applies to it unchanged.
//
// Shared tiles are swizzled as the copy engine writes them (cuda/hopper/tma.h): element (r, c) of an R-row tile
// is in panel p = c / 64, at byte (p R + r) 128 + (((c % 64) / 8) ^ (r % 8)) 16 + (c % 8) 2. Every ldmatrix
// row address below starts at a row that is a multiple of 8 plus the lane's (l % 8), so each lane's swizzle
// is one XOR with a constant.
#pragma once
#include "tessera/tile/cuda/gather.h"
#include "tessera/tile/cuda/hopper/sync.h"
#include "tessera/tile/cuda/hopper/wgmma.h"
#include "tessera/tile/cuda/warp_mma.h"

namespace tessera::tile::cuda {

// The 16 x N sum over the W slices of a 16 W x N accumulator tile, its columns spread over the slices' warps:
// warp w holds columns [w N / W, (w + 1) N / W), thread lane l the elements e = 4 j + 2 h + p at row
// l / 4 + 8 h, column w N / W + 8 j + 2 (l % 4) + p. Every element lives in exactly one thread.
template <int N, int W>
struct SliceCols {
  static_assert(N % (8 * W) == 0, "each warp's share of the columns is whole 8-column fragments");
  static constexpr int rows = kSliceRows, cols = N, threads = 32 * W;
  static constexpr int size = N / (2 * W);
  __device__ static int row(int e) { return hopper::lane() / 4 + 8 * ((e / 2) % 2); }
  __device__ static int col(int e) {
    return (int(threadIdx.x) / 32) * (N / W) + 8 * (e / 4) + 2 * (hopper::lane() % 4) + e % 2;
  }
  __device__ static bool owner(int) { return true; }
};

// A 16 x 1 row statistic combined over W slices: every warp holds all of it, lane l rows l / 4 and l / 4 + 8
// (slots 0 and 1); the first warp's first lane of each quad stores.
template <int W>
struct SliceRows {
  static constexpr int rows = kSliceRows, cols = 1, threads = 32 * W, size = 2;
  __device__ static int row(int s) { return hopper::lane() / 4 + 8 * s; }
  __device__ static int col(int) { return 0; }
  __device__ static bool owner(int) { return threadIdx.x < 32 && hopper::lane() % 4 == 0; }
  template <class D>
  __host__ __device__ static constexpr int slot_of(int e) { return (e / 2) % 2; }
};

template <int N, int W>
struct common_layout<SliceCols<N, W>, SliceRows<W>> { using type = SliceCols<N, W>; };
template <int N, int W>
struct common_layout<SliceRows<W>, SliceCols<N, W>> { using type = SliceCols<N, W>; };

namespace hopper {

// The warp-level tensor-core instructions (cuda/warp_mma.h).
using warp::ldmatrix_x4;
using warp::mma_m16n8k16;

__device__ __forceinline__ void store_shared(uint32_t addr, float a, float b, float c, float d) {
  asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "f"(a), "f"(b), "f"(c), "f"(d) : "memory");
}
__device__ __forceinline__ void load_shared(uint32_t addr, float (&v)[4]) {
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3]) : "r"(addr) : "memory");
}

// This warp's slice index (its warp among the consumers, which are the block's first warpgroups), the same in
// every lane.
__device__ __forceinline__ int slice() { return __shfl_sync(0xffffffffu, int(threadIdx.x) / 32, 0); }
}  // namespace hopper

// acc += a @ b^T slice by slice: rows [16 s, 16 s + 16) of acc and a against rows [N s, N s + N) of b [4 C N, K]
// (the keys of a tile, cut in 4 C). Synchronous.
template <class T, int N, int K, int R, int M, int C>
__device__ __forceinline__ void mma_slices(Tile<float, WgmmaAcc<M, N, C>>& acc, const Tile<T, WgmmaAcc<M, K, C>>& a,
                                           const Transposed<SharedTile<T, R, K>>& b) {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, f16>, "warp-level mma: bf16 or f16");
  static_assert(M == 64 * C && R == 4 * C * N && N % 8 == 0 && K % 32 == 0,
                "b is one slice of whole 8-row fragments per warp, K in 32s");
  const int l = hopper::lane();
  // Lane l addresses row l % 8 of matrix l / 8 of each ldmatrix: matrices 0..3 are columns k0 + 8 i.
  const uint32_t base = hopper::shared_address(b.tile.data) + uint32_t((hopper::slice() * N) * 128);
#pragma unroll
  for (int kk = 0; kk < K / 16; kk += 2) {
    uint32_t af[2][4];
    hopper::a_fragment(af[0], a, 0, kk);
    hopper::a_fragment(af[1], a, 0, kk + 1);
#pragma unroll
    for (int j = 0; j < N / 8; ++j) {
      uint32_t bf[4];
      hopper::ldmatrix_x4<false>(bf, base + hopper::swizzled_piece<T, R>(8 * j + l % 8, 16 * kk + 8 * (l / 8)));
      hopper::mma_m16n8k16<T>(&acc.v[4 * j], af[0], bf[0], bf[1]);
      hopper::mma_m16n8k16<T>(&acc.v[4 * j], af[1], bf[2], bf[3]);
    }
  }
}

// acc += a @ b slice by slice: rows [16 s, 16 s + 16) of acc and a [64 C, K] against rows [K s, K s + K) of
// b [4 C K, N] (the values of a tile's keys, cut in 4 C). Synchronous.
template <class T, int N, int K, int R, int M, int C>
__device__ __forceinline__ void mma_slices(Tile<float, WgmmaAcc<M, N, C>>& acc, const Tile<T, WgmmaAcc<M, K, C>>& a,
                                           const SharedTile<T, R, N>& b) {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, f16>, "warp-level mma: bf16 or f16");
  static_assert(M == 64 * C && R == 4 * C * K && K % 16 == 0 && N % 16 == 0, "b is one slice of whole 16-row k steps per warp");
  const int l = hopper::lane();
  // Transposed loads: matrices 0..3 are (rows +0, columns +0), (rows +8, +0), (rows +0, +8), (rows +8, +8).
  const uint32_t base = hopper::shared_address(b.data);
  const int row0 = hopper::slice() * K + l % 8 + 8 * ((l / 8) % 2);
#pragma unroll
  for (int kk = 0; kk < K / 16; ++kk) {
    uint32_t af[4];
    hopper::a_fragment(af, a, 0, kk);
#pragma unroll
    for (int jj = 0; jj < N / 16; ++jj) {
      uint32_t bf[4];
      hopper::ldmatrix_x4<true>(bf, base + hopper::swizzled_piece<T, R>(row0 + 16 * kk, 16 * jj + 8 * (l / 16)));
      hopper::mma_m16n8k16<T>(&acc.v[4 * (2 * jj)], af, bf[0], bf[1]);
      hopper::mma_m16n8k16<T>(&acc.v[4 * (2 * jj + 1)], af, bf[2], bf[3]);
    }
  }
}

namespace detail {
// WgmmaAcc<64 C, N, C> with every warp's rows taken as the first slice's: the rows a sliced load reads.
template <int N, int C>
struct FirstSliceRows : WgmmaAcc<64 * C, N, C> {
  __device__ static int row(int e) { return WgmmaAcc<64 * C, N, C>::row(e) % kSliceRows; }
};
}  // namespace detail

// A tile shaped like `like` ([64 C, N], accumulator layout) whose every slice holds the 16 rows of a rank-3
// view seen as rows from at.row (host/slices.h); `pad` outside.
template <class T, class U, int M, int N, int C, int TH>
__device__ __forceinline__ Tile<std::remove_const_t<T>, WgmmaAcc<M, N, C>> load_slices(const Block<TH>&,
                                                                                     const Tile<U, WgmmaAcc<M, N, C>>&,
                                                                                     const View3<T>& view, Coord at,
                                                                                     float pad = 0.f) {
  static_assert(M == 64 * C, "one 64-row group of slices per consumer warpgroup");
  const auto first = detail::load_accumulator<detail::FirstSliceRows<N, C>>(view, at, pad);
  Tile<std::remove_const_t<T>, WgmmaAcc<M, N, C>> out;
#pragma unroll
  for (int e = 0; e < WgmmaAcc<M, N, C>::size; ++e) out.v[e] = first.v[e];
  return out;
}

// A sum over slices written from row at.row, column at.col of a rank-3 view seen as rows: each thread's two
// rows split once, its column pairs one access each where the view allows. Element by element (a 64-bit
// row split and bounds test each) the stores of a decode block's partial results were ~600 instructions a
// warp, a fifth of its work (Nsight Compute, H200).
template <class T, class U, int N, int W, int TH>
__device__ __forceinline__ void store(const Block<TH>&, const View3<T>& view, Coord at, const Tile<U, SliceCols<N, W>>& t) {
  static_assert(std::is_same_v<T, U>, "store: the tile's element type must equal the view's: cast first");
  using L = SliceCols<N, W>;
  if (!detail::pairs_fit(view, at.col, N)) return detail::store_elements(view, at, t);
  const detail::RowsFrom<T> rows(view, at.row);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int i = L::row(2 * h);
    if (!rows.row_inside(i)) continue;
    T* row = view.data + rows.offset(i, at.col + L::col(2 * h));
#pragma unroll
    for (int j = 0; j < N / (8 * W); ++j) *reinterpret_cast<detail::pair_of<T>*>(row + 8 * j) = {t.v[4 * j + 2 * h], t.v[4 * j + 2 * h + 1]};
  }
}

// A 16-row statistic combined over S slices, as the 16 S-row statistic every slice of which holds it.
template <int S, class T>
__device__ __forceinline__ Tile<T, WgmmaRows<16 * S, S / 4>> repeat_slices(const Tile<T, SliceRows<S>>& t) {
  static_assert(S % 4 == 0, "four slices a consumer warpgroup");
  Tile<T, WgmmaRows<16 * S, S / 4>> out;
  out.v[0] = t.v[0];
  out.v[1] = t.v[1];
  return out;
}

namespace hopper {
// Combines the C consumer warpgroups' warps' copies of a 64 C-row statistic: each warp's quad leaders publish
// their two rows, every thread reads the 4 C values of its own rows. The first sync keeps an earlier call's
// readers ahead of this call's writers.
template <int C, class F>
__device__ __forceinline__ Tile<float, SliceRows<4 * C>> combine_slice_rows(const Tile<float, WgmmaRows<64 * C, C>>& t, F f) {
  constexpr int S = 4 * C;
  __shared__ float rows[S][kSliceRows];
  const int l = lane(), w = int(threadIdx.x) / 32;
  consumer_sync(1, 128 * C);
  if (l % 4 == 0) {
    rows[w][l / 4] = t.v[0];
    rows[w][l / 4 + 8] = t.v[1];
  }
  consumer_sync(1, 128 * C);
  Tile<float, SliceRows<S>> out;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float x = rows[0][l / 4 + 8 * h];
#pragma unroll
    for (int s = 1; s < S; ++s) x = f(x, rows[s][l / 4 + 8 * h]);
    out.v[h] = x;
  }
  return out;
}
}  // namespace hopper

}  // namespace tessera::tile::cuda
