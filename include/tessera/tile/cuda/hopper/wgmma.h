// Tensor-core matrix multiply on Hopper (wgmma): the accumulator layout, shared-memory descriptors, mma on
// shared tiles, and stores of accumulator tiles.
//
// An accumulator tile of M x N over CONSUMERS warpgroups: warpgroup g owns rows [g M/C, (g+1) M/C), in
// slices of 64 rows, each the D fragment of wgmma m64nNk16: thread t of the warpgroup (warp w = t / 32,
// lane l) holds, for slice s and register r = 4 j + 2 h + p, the element at
//   row = g M/C + 64 s + 16 w + l / 4 + 8 h,   col = 8 j + 2 (l % 4) + p.
// Elementwise tile operations apply to it as to any tile; pairs (p = 0, 1) are adjacent columns, which
// stores and loads use for 2-element accesses.
#pragma once
#include <type_traits>

#include "tessera/tile/cuda/hopper/sync.h"
#include "tessera/tile/cuda/tile.h"
#include "tessera/tile/staged.h"

namespace tessera::tile::cuda {

template <int M, int N, int C>
struct WgmmaAcc {
  static_assert(M % (64 * C) == 0, "each consumer warpgroup owns whole 64-row slices");
  static_assert(N % 8 == 0 && N <= 256, "wgmma N is a multiple of 8, at most 256");
  static constexpr int rows = M, cols = N, threads = 128 * C;
  static constexpr int rows_per_group = M / C, slices = M / C / 64, per_slice = N / 2;
  static constexpr int size = slices * per_slice;
  __device__ static int row(int e) {
    const int t = hopper::thread_in_warpgroup(), r = e % per_slice;
    return hopper::warpgroup() * rows_per_group + (e / per_slice) * 64 + (t / 32) * 16 + (t % 32) / 4 + 8 * ((r / 2) % 2);
  }
  __device__ static int col(int e) {
    const int r = e % per_slice;
    return 8 * (r / 4) + 2 * (hopper::lane() % 4) + r % 2;
  }
  __device__ static bool owner(int) { return true; }
};

namespace hopper {
#if TESSERA_SM90A
#include "tessera/tile/cuda/hopper/wgmma_instructions.inc"
#endif

// Descriptor of a K-major operand in shared memory, 128-byte swizzle: rows of 128 bytes, 8-row atoms 1024
// bytes apart. `p` points at the first element of the 64-row (or N-row) block at a 16-element k offset.
__device__ __forceinline__ uint64_t smem_descriptor(const void* p) {
  const uint64_t addr = shared_address(p);
  return ((addr & 0x3FFFF) >> 4) | (uint64_t(1) << 16) | (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}

template <class T, int N>
__device__ __forceinline__ void wgmma_k16(float (&d)[N / 2], uint64_t da, uint64_t db) {
#if TESSERA_SM90A
#define TESSERA_WGMMA_CASE(NN)                                                              \
  if constexpr (N == NN) {                                                                  \
    if constexpr (std::is_same_v<T, bf16>) wgmma_bf16_n##NN<0>(d, da, db, 1);               \
    else wgmma_f16_n##NN<0>(d, da, db, 1);                                                  \
  }
  TESSERA_WGMMA_CASE(8) TESSERA_WGMMA_CASE(16) TESSERA_WGMMA_CASE(32) TESSERA_WGMMA_CASE(64)
  TESSERA_WGMMA_CASE(128) TESSERA_WGMMA_CASE(256)
#undef TESSERA_WGMMA_CASE
#else
  (void)d; (void)da; (void)db; __trap();
#endif
}
}  // namespace hopper

// An M x N accumulator for the consumers of a staged kernel, zero.
template <int M, int N, class Pipe>
__device__ __forceinline__ Tile<float, WgmmaAcc<M, N, Pipe::consumer_groups>> mma_accumulator(const Pipe&) {
  Tile<float, WgmmaAcc<M, N, Pipe::consumer_groups>> acc;
#pragma unroll
  for (int e = 0; e < WgmmaAcc<M, N, Pipe::consumer_groups>::size; ++e) acc.v[e] = 0.f;
  return acc;
}

// acc += a @ b^T for a [M, K] and b [N, K] in shared memory, on the tensor cores. Asynchronous: the pipeline's
// stage range waits for completion before a stage is released and after the last one.
template <class T, int M, int N, int K, int C>
__device__ __forceinline__ void mma(Tile<float, WgmmaAcc<M, N, C>>& acc, const SharedTile<T, M, K>& a,
                                    const Transposed<SharedTile<T, N, K>>& b) {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, f16>, "wgmma tiles: bf16 or f16");
  static_assert(K * sizeof(T) == 128, "a shared tile row is one 128-byte swizzle atom (64 16-bit elements)");
  using L = WgmmaAcc<M, N, C>;
  // No register fences here: touching the accumulators between chained wgmma would make the compiler wait
  // for them; the stage range fences them once, after the last wait.
  hopper::wgmma_fence();
  const T* a_rows = a.data + hopper::warpgroup() * L::rows_per_group * K;
#pragma unroll
  for (int s = 0; s < L::slices; ++s)
#pragma unroll
    for (int k = 0; k < K; k += 16)
      hopper::wgmma_k16<T, N>(*reinterpret_cast<float(*)[N / 2]>(&acc.v[s * L::per_slice]),
                              hopper::smem_descriptor(a_rows + s * 64 * K + k), hopper::smem_descriptor(b.tile.data + k));
  hopper::wgmma_commit();
}

namespace detail {
template <class T>
struct alignas(2 * sizeof(T)) pair_of { T x, y; };
}  // namespace detail

// Stores an accumulator-layout tile: adjacent column pairs as one access where the view allows.
template <class T, class U, int M, int N, int C, int TH>
__device__ __forceinline__ void store(const Block<TH>&, const View2<T>& view, Coord at, const Tile<U, WgmmaAcc<M, N, C>>& t) {
  static_assert(std::is_same_v<T, U>, "store: the tile's element type must equal the view's: cast first");
  using L = WgmmaAcc<M, N, C>;
  const bool pairs = view.stride[1] == 1 && (reinterpret_cast<uintptr_t>(view.data) % (2 * sizeof(T))) == 0 &&
                     (view.stride[0] % 2) == 0 && (at.col % 2) == 0;
#pragma unroll
  for (int e = 0; e < L::size; e += 2) {
    const int64_t r = at.row + L::row(e), c = at.col + L::col(e);
    if (r >= view.extent[0]) continue;
    T* dst = view.data + r * view.stride[0] + c * view.stride[1];
    if (pairs && c + 1 < view.extent[1]) {
      *reinterpret_cast<detail::pair_of<T>*>(dst) = {t.v[e], t.v[e + 1]};
    } else {
      if (c < view.extent[1]) dst[0] = t.v[e];
      if (c + 1 < view.extent[1]) view.data[r * view.stride[0] + (c + 1) * view.stride[1]] = t.v[e + 1];
    }
  }
}

// A tile laid out like `like` (same shape, same elements per thread) read from `view` at `at`; `pad` outside.
template <class T, class U, class L, int TH>
__device__ __forceinline__ Tile<std::remove_const_t<T>, L> load_like(const Block<TH>& blk, const Tile<U, L>&, const View2<T>& view,
                                                                     Coord at, float pad = 0.f) {
  using V = std::remove_const_t<T>;
  if constexpr (std::is_same_v<L, Blocked<L::rows, L::cols, TH>>) {
    return load<L::rows, L::cols>(blk, view, at, pad);
  } else {
    Tile<V, L> out;
    const V padv = convert_element<V>(pad);
#pragma unroll
    for (int e = 0; e < L::size; ++e) {
      const int64_t r = at.row + L::row(e), c = at.col + L::col(e);
      out.v[e] = r >= 0 && r < view.extent[0] && c >= 0 && c < view.extent[1] ? view.data[r * view.stride[0] + c * view.stride[1]] : padv;
    }
    return out;
  }
}

}  // namespace tessera::tile::cuda
