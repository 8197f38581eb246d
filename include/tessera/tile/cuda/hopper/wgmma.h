// Tensor-core matrix multiply on Hopper (wgmma): the accumulator layout, shared-memory descriptors, mma on
// shared tiles, and stores of accumulator tiles.
//
// An accumulator tile of M x N over C warpgroups: warpgroup g (of the C that share the tile) owns rows
// [g M/C, (g+1) M/C), in slices of 64 rows, each the D fragment of wgmma m64nNk16: thread t of the warpgroup
// (warp w = t / 32, lane l) holds, for slice s and register r = 4 j + 2 h + p, the element at
//   row = g M/C + 64 s + 16 w + l / 4 + 8 h,   col = 8 j + 2 (l % 4) + p.
// With C = 1 (ping-pong consumers) each warpgroup owns the whole tile.
// Elementwise tile operations apply to it as to any tile; pairs (p = 0, 1) are adjacent columns, which
// stores and loads use for 2-element accesses.
#pragma once
#include <type_traits>

#include "tessera/tile/cuda/hopper/sync.h"
#include "tessera/tile/cuda/hopper/tma.h"
#include "tessera/tile/cuda/reduce.h"
#include "tessera/tile/cuda/tile.h"
#include "tessera/tile/cuda/warp_mma.h"
#include "tessera/tile/staged.h"

namespace tessera::tile::cuda {

template <int M, int N, int C>
struct WgmmaAcc {
  static_assert(M % (64 * C) == 0, "each consumer warpgroup owns whole 64-row slices");
  static_assert(N % 8 == 0 && N <= 256, "wgmma N is a multiple of 8, at most 256");
  static constexpr int rows = M, cols = N, threads = 128 * C;
  static constexpr int rows_per_group = M / C, slices = M / C / 64, per_slice = N / 2;
  static constexpr int size = slices * per_slice;
  // This thread's index among the tile's threads.
  __device__ static int thread() { return (C == 1 ? 0 : hopper::warpgroup() * 128) + hopper::thread_in_warpgroup(); }
  // The first row of this warpgroup's share.
  __device__ static int first_row() { return C == 1 ? 0 : hopper::warpgroup() * rows_per_group; }
  __device__ static int row(int e) {
    const int t = hopper::thread_in_warpgroup(), r = e % per_slice;
    return first_row() + (e / per_slice) * 64 + (t / 32) * 16 + (t % 32) / 4 + 8 * ((r / 2) % 2);
  }
  __device__ static int col(int e) {
    const int r = e % per_slice;
    return 8 * (r / 4) + 2 * (hopper::lane() % 4) + r % 2;
  }
  __device__ static bool owner(int) { return true; }
};

// The M x 1 result of a row reduction over a WgmmaAcc<M, N, C> tile (any N): each thread holds the two rows
// of each slice it touches (h = 0, 1 above), so it broadcasts over the accumulator without data movement. The
// four threads of a quad (lanes 4q .. 4q + 3) share those rows; the first of them stores.
template <int M, int C>
struct WgmmaRows {
  static constexpr int rows = M, cols = 1, threads = 128 * C;
  static constexpr int slices = M / C / 64, size = 2 * slices;
  // The warpgroup from the thread index, not warpgroup()'s shuffle: stores call row() for their owners only.
  __device__ static int row(int s) {
    const int t = hopper::thread_in_warpgroup();
    return (C == 1 ? 0 : (int(threadIdx.x) / 128) * (M / C)) + (s / 2) * 64 + (t / 32) * 16 + (t % 32) / 4 + 8 * (s % 2);
  }
  __device__ static int col(int) { return 0; }
  __device__ static bool owner(int) { return hopper::lane() % 4 == 0; }
  // The slot that holds the row of element e of an accumulator tile laid out as D.
  template <class D>
  __host__ __device__ static constexpr int slot_of(int e) { return (e / D::per_slice) * 2 + ((e % D::per_slice) / 2) % 2; }
};

// An M x N accumulator of consumers in column shares (Consumers::column_shares): each of the C consumer
// warpgroups holds all M rows of its own columns [g N/C, (g+1) N/C), laid out as WgmmaAcc<M, N/C, 1> there.
// Row reductions meet across the shares in shared memory, so every warpgroup holds every row's result
// (WgmmaRows<M, 1>), identical in each.
template <int M, int N, int C>
struct WgmmaColumnShares {
  using Share = WgmmaAcc<M, N / C, 1>;
  static_assert(N % (8 * C) == 0, "each consumer warpgroup owns a whole number of 8-column groups");
  static constexpr int rows = M, cols = N, threads = 128 * C, share_cols = N / C;
  static constexpr int slices = Share::slices, per_slice = Share::per_slice, size = Share::size;
  // The first column of this warpgroup's share (from the thread index: stores call col() for owners only).
  __device__ static int first_col() { return (int(threadIdx.x) / 128) * share_cols; }
  __device__ static int row(int e) { return Share::row(e); }
  __device__ static int col(int e) { return first_col() + Share::col(e); }
  __device__ static bool owner(int) { return true; }
};

template <int M, int N, int C>
struct common_layout<WgmmaAcc<M, N, C>, WgmmaRows<M, C>> { using type = WgmmaAcc<M, N, C>; };
template <int M, int N, int C>
struct common_layout<WgmmaColumnShares<M, N, C>, WgmmaRows<M, 1>> { using type = WgmmaColumnShares<M, N, C>; };
template <int M, int N, int C>
struct common_layout<WgmmaRows<M, 1>, WgmmaColumnShares<M, N, C>> { using type = WgmmaColumnShares<M, N, C>; };
template <int M, int N, int C>
struct common_layout<WgmmaRows<M, C>, WgmmaAcc<M, N, C>> { using type = WgmmaAcc<M, N, C>; };

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

// Descriptor of an MN-major operand (B as [K, N], N contiguous), 128-byte swizzle: in each 64-column panel,
// rows of 128 bytes (one k each) in 8-row atoms 1024 bytes apart; panels `panel_bytes` apart along N. `p`
// points at the first row of a 16-row k step.
__device__ __forceinline__ uint64_t smem_descriptor_mn(const void* p, uint32_t panel_bytes) {
  const uint64_t addr = shared_address(p);
  return ((addr & 0x3FFFF) >> 4) | (uint64_t((panel_bytes >> 4) & 0x3FFF) << 16) | (uint64_t(1024 >> 4) << 32) |
         (uint64_t(1) << 62);
}

// What a descriptor advances by for an operand `elements` further on in shared memory: the start-address field
// counts 16-byte units, and shared addresses stay under 2^18 bytes, so adding to a descriptor never carries out
// of that field. Products build their first descriptors once and step from them: one add a wgmma instead of a
// descriptor built anew (on the MLA decode kernel, 432 -> 451 TFLOP/s).
template <class T>
__device__ __forceinline__ constexpr uint32_t descriptor_step(int elements) {
  return uint32_t(elements * int(sizeof(T)) / 16);
}

// This thread's m64k16 A fragment (four registers of two 16-bit elements) for columns [16 kk, 16 kk + 16) of
// slice s of a 16-bit tile in accumulator layout: the accumulator's elements 8 kk .. 8 kk + 7 of the slice, in
// order (rows l/4 and l/4 + 8, column pairs 2 (l%4) and 2 (l%4) + 8, as the A fragment orders them).
template <class T, class L>
__device__ __forceinline__ void a_fragment(uint32_t (&a)[4], const Tile<T, L>& t, int s, int kk) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int e = s * L::per_slice + 8 * kk + 2 * i;
    a[i] = uint32_t(t.v[e].bits) | (uint32_t(t.v[e + 1].bits) << 16);
  }
}

// Before mma with A from registers: every A fragment packed, then the fragments and the accumulator pinned
// (an empty asm that reads and writes them), then wgmma.fence. PTX requires the fence between any other
// access to those registers and the wgmma that uses them; without the pins the compiler may sink the packing
// or a rescale of the accumulator (online softmax) past the fence. The accumulator must not be in flight here
// (the caller waited for it).
template <int SLICES, int KSTEPS, class T, class L, class Acc>
__device__ __forceinline__ void a_fragments_before_fence(uint32_t (&frag)[SLICES][KSTEPS][4], Acc& acc, const Tile<T, L>& a) {
#pragma unroll
  for (int s = 0; s < SLICES; ++s)
#pragma unroll
    for (int kk = 0; kk < KSTEPS; ++kk) {
      a_fragment(frag[s][kk], a, s, kk);
#pragma unroll
      for (int i = 0; i < 4; ++i) asm volatile("" : "+r"(frag[s][kk][i])::"memory");
    }
#pragma unroll
  for (int e = 0; e < Acc::layout::size; ++e) fence_register(acc.v[e]);
  wgmma_fence();
}

template <class T, int N, int TRANS_B>
__device__ __forceinline__ void wgmma_rs_k16(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t db) {
#if TESSERA_SM90A
#define TESSERA_WGMMA_RS_CASE(NN)                                                          \
  if constexpr (N == NN) {                                                                 \
    if constexpr (std::is_same_v<T, bf16>) wgmma_rs_bf16_n##NN<TRANS_B>(d, a, db, 1);      \
    else wgmma_rs_f16_n##NN<TRANS_B>(d, a, db, 1);                                         \
  }
  TESSERA_WGMMA_RS_CASE(8) TESSERA_WGMMA_RS_CASE(16) TESSERA_WGMMA_RS_CASE(32) TESSERA_WGMMA_RS_CASE(64)
  TESSERA_WGMMA_RS_CASE(128) TESSERA_WGMMA_RS_CASE(256)
#undef TESSERA_WGMMA_RS_CASE
#else
  (void)d; (void)a; (void)db; __trap();
#endif
}

// scale_d 1: d += a b; 0: d = a b.
template <class T, int N, int TRANS_B = 0>
__device__ __forceinline__ void wgmma_k16(float (&d)[N / 2], uint64_t da, uint64_t db, int scale_d = 1) {
#if TESSERA_SM90A
#define TESSERA_WGMMA_CASE(NN)                                                              \
  if constexpr (N == NN) {                                                                  \
    if constexpr (std::is_same_v<T, bf16>) wgmma_bf16_n##NN<TRANS_B>(d, da, db, scale_d);   \
    else wgmma_f16_n##NN<TRANS_B>(d, da, db, scale_d);                                      \
  }
  TESSERA_WGMMA_CASE(8) TESSERA_WGMMA_CASE(16) TESSERA_WGMMA_CASE(32) TESSERA_WGMMA_CASE(64)
  TESSERA_WGMMA_CASE(128) TESSERA_WGMMA_CASE(256)
#undef TESSERA_WGMMA_CASE
#else
  (void)d; (void)da; (void)db; (void)scale_d; __trap();
#endif
}

// The k step of one wgmma: 32 bytes of K, 16 elements of 16 bits or 32 of fp8.
template <class T> inline constexpr int wgmma_k = 32 / int(sizeof(T));

// One k step of shared tiles, both K-major, of 16-bit or fp8 e4m3 elements. scale_d as wgmma_k16.
template <class T, int N>
__device__ __forceinline__ void wgmma_step(float (&d)[N / 2], uint64_t da, uint64_t db, int scale_d) {
  if constexpr (std::is_same_v<T, fp8_e4m3>) {
#if TESSERA_SM90A
    static_assert(N == 64 || N == 128 || N == 256, "fp8 wgmma shapes: add N to scripts/gen_wgmma.py");
    if constexpr (N == 64) wgmma_e4m3_n64(d, da, db, scale_d);
    else if constexpr (N == 128) wgmma_e4m3_n128(d, da, db, scale_d);
    else wgmma_e4m3_n256(d, da, db, scale_d);
#else
    (void)d; (void)da; (void)db; (void)scale_d; __trap();
#endif
  } else {
    wgmma_k16<T, N>(d, da, db, scale_d);
  }
}

// acc (+)= a @ b^T for shared tiles, the accumulator overwritten by the first k step when OVERWRITE.
// The sm_80 form (TESSERA_SM80_PIPELINE): each warp multiplies its own 16 rows of each slice into its fragments
// with mma.sync m16n8k16, both operands read from the swizzled tiles by ldmatrix (the swizzle puts the 8 rows of
// each 8 x 8 matrix in 8 different 16-byte bank groups: conflict-free). Synchronous: the stage may be
// released as soon as the warp has issued its last product.
template <bool OVERWRITE, class T, int M, int N, int K, int C>
__device__ __forceinline__ void mma_shared_warps(Tile<float, WgmmaAcc<M, N, C>>& acc, const SharedTile<T, M, K>& a,
                                                 const Transposed<SharedTile<T, N, K>>& b) {
  if constexpr (!(std::is_same_v<T, bf16> || std::is_same_v<T, f16>)) {
    (void)acc; (void)a; (void)b;
    __trap();  // fp8 products need Hopper's tensor cores: launchers pick them only there
  } else {
    using L = WgmmaAcc<M, N, C>;
    static_assert(K % 16 == 0 && N % 16 == 0, "mma.sync tiles: k steps of 16, columns in pairs of 8");
    if constexpr (OVERWRITE) {
#pragma unroll
      for (int e = 0; e < L::size; ++e) acc.v[e] = 0.f;
    }
    const int l = lane();
    const int row0 = L::first_row() + 16 * (thread_in_warpgroup() / 32);
    const uint32_t a_base = shared_address(a.data), b_base = shared_address(b.tile.data);
#pragma unroll
    for (int kk = 0; kk < K / 16; ++kk) {
      // a: lane l addresses row l % 16 of the warp's rows at column 16 kk + 8 (l / 16) (the four 8 x 8
      // matrices of the A fragment); b: lane l row 8 (l / 16) + l % 8 of a 16-row pair of 8-column fragments
      // at column 16 kk + 8 ((l / 8) % 2), so one x4 holds both fragments' k halves.
      uint32_t af[L::slices][4];
#pragma unroll
      for (int s = 0; s < L::slices; ++s)
        warp::ldmatrix_x4<false>(af[s], a_base + swizzled_piece<T, M>(row0 + 64 * s + l % 16, 16 * kk + 8 * (l / 16)));
#pragma unroll
      for (int j = 0; j < N / 8; j += 2) {
        uint32_t bf[4];
        warp::ldmatrix_x4<false>(bf, b_base + swizzled_piece<T, N>(8 * j + 8 * (l / 16) + l % 8, 16 * kk + 8 * ((l / 8) % 2)));
#pragma unroll
        for (int s = 0; s < L::slices; ++s) {
          warp::mma_m16n8k16<T>(&acc.v[s * L::per_slice + 4 * j], af[s], bf[0], bf[1]);
          warp::mma_m16n8k16<T>(&acc.v[s * L::per_slice + 4 * (j + 1)], af[s], bf[2], bf[3]);
        }
      }
    }
  }
}

template <bool OVERWRITE, class T, int M, int N, int K, int C>
__device__ __forceinline__ void mma_shared(Tile<float, WgmmaAcc<M, N, C>>& acc, const SharedTile<T, M, K>& a,
                                           const Transposed<SharedTile<T, N, K>>& b) {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, f16> || std::is_same_v<T, fp8_e4m3>,
                "wgmma tiles from shared memory: bf16, f16 or fp8 e4m3");
  constexpr int P = panel_cols<T>;
  static_assert(K % P == 0, "shared tiles are whole 128-byte panels wide (64 16-bit or 128 fp8 elements)");
#if TESSERA_SM80_PIPELINE
  return mma_shared_warps<OVERWRITE>(acc, a, b);
#endif
  using L = WgmmaAcc<M, N, C>;
  // No register fences here: touching the accumulators between chained wgmma would make the compiler wait
  // for them; the stage range fences them once, after the last wait.
  // Each step's descriptors are the first's plus the step's offset (descriptor_step).
  const uint64_t a_first = smem_descriptor(a.data + L::first_row() * P), b_first = smem_descriptor(b.tile.data);
  wgmma_fence();
#pragma unroll
  for (int s = 0; s < L::slices; ++s)
#pragma unroll
    for (int k = 0; k < K; k += wgmma_k<T>) {
      const uint32_t a_step = descriptor_step<T>((k / P) * M * P + s * 64 * P + k % P);
      const uint32_t b_step = descriptor_step<T>((k / P) * N * P + k % P);
      wgmma_step<T, N>(*reinterpret_cast<float(*)[N / 2]>(&acc.v[s * L::per_slice]), a_first + a_step, b_first + b_step,
                       OVERWRITE && k == 0 ? 0 : 1);
    }
  wgmma_commit();
}
}  // namespace hopper

// The layout of an M x N accumulator of the consumers of a staged kernel: rows shared out (cooperative), whole
// (ping-pong), or columns shared out (column_shares).
template <int M, int N, class Pipe>
using accumulator_layout = std::conditional_t<Pipe::mode == Consumers::column_shares, WgmmaColumnShares<M, N, Pipe::consumer_count>,
                                              WgmmaAcc<M, N, Pipe::consumers_per_tile>>;

// An M x N accumulator for the consumers of a staged kernel, zero.
template <int M, int N, class Pipe>
__device__ __forceinline__ Tile<float, accumulator_layout<M, N, Pipe>> mma_accumulator(const Pipe&) {
  Tile<float, accumulator_layout<M, N, Pipe>> acc;
#pragma unroll
  for (int e = 0; e < accumulator_layout<M, N, Pipe>::size; ++e) acc.v[e] = 0.f;
  return acc;
}

// acc += a @ b^T for a [M, K] and b [N, K] in shared memory, on the tensor cores. Asynchronous: the pipeline's
// stage range waits for completion before a stage is released and after the last one (or mma_wait does).
template <class T, int M, int N, int K, int C>
__device__ __forceinline__ void mma(Tile<float, WgmmaAcc<M, N, C>>& acc, const SharedTile<T, M, K>& a,
                                    const Transposed<SharedTile<T, N, K>>& b) {
  hopper::mma_shared<false>(acc, a, b);
}

// acc = a @ b^T (tile::overwrite): the same, with the first k step's product written over acc.
template <class T, int M, int N, int K, int C>
__device__ __forceinline__ void mma(Tile<float, WgmmaAcc<M, N, C>>& acc, const SharedTile<T, M, K>& a,
                                    const Transposed<SharedTile<T, N, K>>& b, Overwrite) {
  hopper::mma_shared<true>(acc, a, b);
}

// acc += a @ b^T for a [M, K] in registers (a 16-bit tile in accumulator layout, e.g. a cast score tile) and
// b [N, K] in shared memory. Asynchronous, as above.
template <class T, int M, int N, int K, int C>
__device__ __forceinline__ void mma(Tile<float, WgmmaAcc<M, N, C>>& acc, const Tile<T, WgmmaAcc<M, K, C>>& a,
                                    const Transposed<SharedTile<T, N, K>>& b) {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, f16>, "wgmma tiles: bf16 or f16");
  constexpr int P = hopper::panel_cols<T>;
  static_assert(K % P == 0, "shared tiles are whole 128-byte panels wide (64 16-bit elements)");
  using L = WgmmaAcc<M, N, C>;
  uint32_t frag[L::slices][K / 16][4];
  const uint64_t b_first = hopper::smem_descriptor(b.tile.data);
  hopper::a_fragments_before_fence(frag, acc, a);
#pragma unroll
  for (int s = 0; s < L::slices; ++s)
#pragma unroll
    for (int kk = 0; kk < K / 16; ++kk) {
      const uint32_t b_step = hopper::descriptor_step<T>((16 * kk / P) * N * P + (16 * kk) % P);
      hopper::wgmma_rs_k16<T, N, 0>(*reinterpret_cast<float(*)[N / 2]>(&acc.v[s * L::per_slice]), frag[s][kk], b_first + b_step);
    }
  hopper::wgmma_commit();
}

// acc += a @ b for a [M, K] in registers and b [K, N] in shared memory, read MN-major (e.g. probabilities times a
// value tile whose rows are keys). Asynchronous, as above.
template <class T, int M, int N, int K, int C>
__device__ __forceinline__ void mma(Tile<float, WgmmaAcc<M, N, C>>& acc, const Tile<T, WgmmaAcc<M, K, C>>& a,
                                    const SharedTile<T, K, N>& b) {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, f16>, "wgmma tiles: bf16 or f16");
  constexpr int P = hopper::panel_cols<T>;
  static_assert(N % P == 0 && K % 16 == 0, "b is whole 128-byte panels wide and whole 16-row k steps tall");
  using L = WgmmaAcc<M, N, C>;
  uint32_t frag[L::slices][K / 16][4];
  const uint64_t b_first = hopper::smem_descriptor_mn(b.data, uint32_t(K * P * sizeof(T)));
  hopper::a_fragments_before_fence(frag, acc, a);
#pragma unroll
  for (int s = 0; s < L::slices; ++s)
#pragma unroll
    for (int kk = 0; kk < K / 16; ++kk)
      hopper::wgmma_rs_k16<T, N, 1>(*reinterpret_cast<float(*)[N / 2]>(&acc.v[s * L::per_slice]), frag[s][kk],
                                    b_first + hopper::descriptor_step<T>(16 * kk * P));
  hopper::wgmma_commit();
}

// Waits until every mma issued so far is done, so the given accumulators can be read. mma_wait<N>: all but
// the N mma calls issued last (their accumulators stay untouched until a later wait).
template <int PENDING = 0, class... Tiles>
__device__ __forceinline__ void mma_wait(Tiles&... tiles) {
  hopper::wgmma_wait<PENDING>();
  auto fence = [](auto& t) {
#pragma unroll
    for (int e = 0; e < std::remove_reference_t<decltype(t)>::layout::size; ++e) hopper::fence_register(t.v[e]);
  };
  (fence(tiles), ...);
}

// Row reductions of an accumulator-layout tile: over the thread's own columns, then across its quad.
namespace detail {
// f over elements [FIRST, FIRST + COUNT) of one row of a thread (index k: element slot_base + 4 (k / 2) + k % 2
// of the tile), as a balanced tree: a chain of N / 4 dependent steps was the longest stretch of an attention
// softmax (each min/max or add waits ~4 cycles for the one before; 32 in a row for a 128-key tile).
template <int FIRST, int COUNT, class T, class L, class F>
__device__ __forceinline__ T reduce_row_tree(const Tile<T, L>& a, int slot_base, F f) {
  if constexpr (COUNT == 1) {
    return a.v[slot_base + 4 * (FIRST / 2) + FIRST % 2];
  } else {
    constexpr int half = COUNT / 2;
    return f(reduce_row_tree<FIRST, half, T, L>(a, slot_base, f), reduce_row_tree<FIRST + half, COUNT - half, T, L>(a, slot_base, f));
  }
}

template <class T, int M, int N, int C, class F>
__device__ __forceinline__ Tile<T, WgmmaRows<M, C>> reduce_acc_rows(const Tile<T, WgmmaAcc<M, N, C>>& a, T identity, F f) {
  using L = WgmmaAcc<M, N, C>;
  using R = WgmmaRows<M, C>;
  (void)identity;  // every row holds N / 4 >= 2 elements of the thread
  Tile<T, R> out;
  // Slot s holds the row of elements (s / 2) per_slice + 4 j + 2 (s % 2) + p (p < 2, j < N / 8).
#pragma unroll
  for (int s = 0; s < R::size; ++s) out.v[s] = reduce_row_tree<0, N / 4, T, L>(a, (s / 2) * L::per_slice + 2 * (s % 2), f);
#pragma unroll
  for (int s = 0; s < R::size; ++s) {
    out.v[s] = f(out.v[s], __shfl_xor_sync(0xffffffffu, out.v[s], 1));
    out.v[s] = f(out.v[s], __shfl_xor_sync(0xffffffffu, out.v[s], 2));
  }
  return out;
}
}  // namespace detail

template <class T, int M, int N, int C>
__device__ __forceinline__ auto row_max(const Tile<T, WgmmaAcc<M, N, C>>& a) {
  // fmaxf for floats: one instruction where a compare and a select took two; NaN is skipped either way.
  return detail::reduce_acc_rows(a, -__int_as_float(0x7f800000), detail::Max{});
}
template <class T, int M, int N, int C>
__device__ __forceinline__ auto row_sum(const Tile<T, WgmmaAcc<M, N, C>>& a) {
  return detail::reduce_acc_rows(a, T(0), [](T x, T y) { return x + y; });
}

// acc = where(rows, acc * factor, acc) (host/math.h). A warp holds 16 rows of each slice; where none of its
// rows is marked it skips the multiplications (an attention output tile: 64 a thread each key tile, for rows
// whose running maximum has long stopped moving).
namespace detail {
template <class L, class R, class F>
__device__ __forceinline__ void scale_acc_rows_where(Tile<float, L>& acc, const Tile<bool, R>& rows, const Tile<F, R>& factor) {
  bool any = false;
  float by[R::size];
#pragma unroll
  for (int s = 0; s < R::size; ++s) {
    any = any || rows.v[s];
    by[s] = rows.v[s] ? float(factor.v[s]) : 1.f;
  }
  if (!__any_sync(0xffffffffu, any)) return;
#pragma unroll
  for (int e = 0; e < L::size; ++e) acc.v[e] *= by[R::template slot_of<L>(e)];
}
}  // namespace detail

template <int M, int N, int C, class F>
__device__ __forceinline__ void scale_rows_where(Tile<float, WgmmaAcc<M, N, C>>& acc, const Tile<bool, WgmmaRows<M, C>>& rows,
                                                 const Tile<F, WgmmaRows<M, C>>& factor) {
  detail::scale_acc_rows_where(acc, rows, factor);
}
// Column shares: every warpgroup holds all rows (of its own columns), so the rows' flags are the same in each.
template <int M, int N, int C, class F>
__device__ __forceinline__ void scale_rows_where(Tile<float, WgmmaColumnShares<M, N, C>>& acc, const Tile<bool, WgmmaRows<M, 1>>& rows,
                                                 const Tile<F, WgmmaRows<M, 1>>& factor) {
  detail::scale_acc_rows_where(acc, rows, factor);
}

// ---- consumers in column shares (Consumers::column_shares) ----
// What the shares exchange goes through shared memory between all C consumer warpgroups, on named barrier 1
// (every consumer thread calls these operations in the same order, as every other consumer-wide one).

namespace detail {
template <int M, int N, int C, class T>
__device__ __forceinline__ Tile<T, WgmmaAcc<M, N / C, 1>> own_share(const Tile<T, WgmmaColumnShares<M, N, C>>& a) {
  Tile<T, WgmmaAcc<M, N / C, 1>> share;
#pragma unroll
  for (int e = 0; e < WgmmaColumnShares<M, N, C>::size; ++e) share.v[e] = a.v[e];
  return share;
}

// The shares' row results meet here: one buffer for every reduction of a kernel (each waits before writing
// it until all shares have read the last one), so that its static shared memory does not grow with them.
template <int C, int M>
__device__ __forceinline__ float (&share_partials())[C][M] {
  __shared__ float partial[C][M];
  return partial;
}

// The C shares' row results `mine` combined with f: they meet in shared memory and are combined in the same
// order in every warpgroup (so all hold the same bits: they rescale their own columns by them).
template <int C, class T, int M, class F>
__device__ __forceinline__ Tile<T, WgmmaRows<M, 1>> combine_shares(const Tile<T, WgmmaRows<M, 1>>& mine, T identity, F f) {
  using R = WgmmaRows<M, 1>;
  if constexpr (C == 1) {
    return mine;
  } else {
    auto& partial = share_partials<C, M>();
    hopper::consumer_sync(1, 128 * C);  // every share has read the previous reduction's partials
    if (R::owner(0)) {
#pragma unroll
      for (int s = 0; s < R::size; ++s) partial[int(threadIdx.x) / 128][R::row(s)] = mine.v[s];
    }
    hopper::consumer_sync(1, 128 * C);
    Tile<T, R> out;
#pragma unroll
    for (int s = 0; s < R::size; ++s) {
      out.v[s] = identity;
#pragma unroll
      for (int c = 0; c < C; ++c) out.v[s] = f(out.v[s], partial[c][R::row(s)]);
    }
    return out;
  }
}

// Each share reduces its own columns, then the shares' results are combined.
template <class T, int M, int N, int C, class F>
__device__ __forceinline__ Tile<T, WgmmaRows<M, 1>> reduce_share_rows(const Tile<T, WgmmaColumnShares<M, N, C>>& a, T identity, F f) {
  static_assert(std::is_same_v<T, float>, "row reductions over column shares: fp32 tiles");
  return combine_shares<C>(reduce_acc_rows(own_share(a), identity, f), identity, f);
}
}  // namespace detail

template <class T, int M, int N, int C>
__device__ __forceinline__ auto row_max(const Tile<T, WgmmaColumnShares<M, N, C>>& a) {
  return detail::reduce_share_rows(a, -__int_as_float(0x7f800000), detail::Max{});
}
template <class T, int M, int N, int C>
__device__ __forceinline__ auto row_sum(const Tile<T, WgmmaColumnShares<M, N, C>>& a) {
  return detail::reduce_share_rows(a, T(0), detail::Sum{});
}

// Running row sums of tiles in column shares (reduce.h has the generic form): each share adds its own columns'
// sums, and total() combines the shares once (one exchange through shared memory) where row_sum exchanges on
// every call. MLA decode's online softmax updates its row sums once a key tile: two of the six consumer-wide
// barrier waits a tile, where barrier waits were its largest stall (Nsight Compute); without them it ran
// 0.5-2.1% faster at B 64-128 x 4k-32k (H200, session 59, run 9).
template <class T, int M, int N, int C>
__device__ __forceinline__ RunningRowSums<Tile<float, WgmmaRows<M, 1>>, C> running_row_sums(const Tile<T, WgmmaColumnShares<M, N, C>>&) {
  return {full_like(Tile<float, WgmmaRows<M, 1>>{}, 0.f)};
}
template <int M, int C, class F, int N>
__device__ __forceinline__ void add_row_sums(RunningRowSums<Tile<float, WgmmaRows<M, 1>>, C>& s, const F& factor,
                                             const Tile<float, WgmmaColumnShares<M, N, C>>& t) {
  s.sums = s.sums * factor + detail::reduce_acc_rows(detail::own_share(t), 0.f, detail::Sum{});
}
template <int M, int C>
  requires(C > 1)
__device__ __forceinline__ Tile<float, WgmmaRows<M, 1>> total(const RunningRowSums<Tile<float, WgmmaRows<M, 1>>, C>& s) {
  return detail::combine_shares<C>(s.sums, 0.f, detail::Sum{});
}

// acc += a @ b^T for a [M, K] and b [N, K] in shared memory, acc in column shares: each warpgroup multiplies
// by its own rows of b (its columns of acc). Asynchronous, as mma on shared tiles.
template <class T, int M, int N, int K, int C>
__device__ __forceinline__ void mma(Tile<float, WgmmaColumnShares<M, N, C>>& acc, const SharedTile<T, M, K>& a,
                                    const Transposed<SharedTile<T, N, K>>& b) {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, f16>, "wgmma tiles: bf16 or f16");
  constexpr int P = hopper::panel_cols<T>, NS = N / C;
  static_assert(K % P == 0, "shared tiles are whole 128-byte panels wide (64 16-bit elements)");
  using L = WgmmaColumnShares<M, N, C>;
  const int n0 = hopper::warpgroup() * NS;  // a multiple of 8 rows of b: whole swizzle atoms
  // Each step's descriptors are the first's plus the step's offset (hopper::descriptor_step).
  const uint64_t a_first = hopper::smem_descriptor(a.data), b_first = hopper::smem_descriptor(b.tile.data + n0 * P);
  hopper::wgmma_fence();
#pragma unroll
  for (int s = 0; s < L::slices; ++s)
#pragma unroll
    for (int k = 0; k < K; k += 16) {
      const uint32_t a_step = hopper::descriptor_step<T>((k / P) * M * P + s * 64 * P + k % P);
      const uint32_t b_step = hopper::descriptor_step<T>((k / P) * N * P + k % P);
      hopper::wgmma_k16<T, NS>(*reinterpret_cast<float(*)[NS / 2]>(&acc.v[s * L::per_slice]), a_first + a_step, b_first + b_step);
    }
  hopper::wgmma_commit();
}

namespace detail {
// Writes a 16-bit accumulator-layout tile (any layout whose threads hold adjacent column pairs) into an M-row
// shared tile, K-major in 128-byte swizzled panels as the copy engine lays tiles, where mma reads it as a left
// operand. Each thread writes its own elements; the caller orders the writes before the products.
template <class T, int M, class L>
__device__ __forceinline__ void store_swizzled(const Tile<T, L>& a, T* tile) {
  static_assert(sizeof(T) == 2, "16-bit tiles: a left operand of wgmma");
  unsigned char* base = reinterpret_cast<unsigned char*>(tile);
#pragma unroll
  for (int e = 0; e < L::size; e += 2) {
    const int r = L::row(e), c = L::col(e);
    const uint32_t pair = uint32_t(a.v[e].bits) | (uint32_t(a.v[e + 1].bits) << 16);
    *reinterpret_cast<uint32_t*>(base + hopper::swizzled_piece<T, M>(r, c) + (c % (16 / sizeof(T))) * sizeof(T)) = pair;
  }
}
}  // namespace detail

// acc += a @ b for a [M, K] shared tile (K-major, swizzled as the copy engine lays tiles) and b [K, N] in shared
// memory read MN-major, acc in column shares: each warpgroup multiplies all of a by its own columns of b.
// Asynchronous, as above.
template <class T, int M, int N, int K, int C>
__device__ __forceinline__ void mma(Tile<float, WgmmaColumnShares<M, N, C>>& acc, const SharedTile<T, M, K>& a,
                                    const SharedTile<T, K, N>& b) {
  static_assert(std::is_same_v<T, bf16> || std::is_same_v<T, f16>, "wgmma tiles: bf16 or f16");
  constexpr int P = hopper::panel_cols<T>, NS = N / C;
  static_assert(NS % P == 0 && K % P == 0, "b's shares and a are whole 128-byte panels wide");
  using L = WgmmaColumnShares<M, N, C>;
#pragma unroll
  for (int e = 0; e < L::size; ++e) hopper::fence_register(acc.v[e]);
  hopper::wgmma_fence();
  const T* b_share = b.data + (hopper::warpgroup() * NS / P) * K * P;
  const uint64_t a_first = hopper::smem_descriptor(a.data);
  const uint64_t b_first = hopper::smem_descriptor_mn(b_share, uint32_t(K * P * sizeof(T)));
#pragma unroll
  for (int s = 0; s < L::slices; ++s)
#pragma unroll
    for (int kk = 0; kk < K / 16; ++kk) {
      const uint32_t a_step = hopper::descriptor_step<T>((16 * kk / P) * M * P + s * 64 * P + (16 * kk) % P);
      const uint32_t b_step = hopper::descriptor_step<T>(16 * kk * P);
      hopper::wgmma_k16<T, NS, 1>(*reinterpret_cast<float(*)[NS / 2]>(&acc.v[s * L::per_slice]), a_first + a_step, b_first + b_step);
    }
  hopper::wgmma_commit();
}

// acc += a @ b for a [M, K] in column shares (e.g. probabilities cast from shared-out scores) and b [K, N] in
// shared memory read MN-major, acc in column shares. Every share needs every column of a: the shares write
// theirs into one swizzled tile in shared memory, from which each warpgroup's products read all of a against
// its own columns of b. Asynchronous, as above; it first waits for this warpgroup's earlier products.
template <class T, int M, int N, int K, int C>
__device__ __forceinline__ void mma(Tile<float, WgmmaColumnShares<M, N, C>>& acc, const Tile<T, WgmmaColumnShares<M, K, C>>& a,
                                    const SharedTile<T, K, N>& b) {
  __shared__ alignas(1024) T whole[M * K];
  // Every warpgroup's products that read `whole` last time are done once all have passed this barrier: each
  // waits for its own first.
  hopper::wgmma_wait<0>();
  hopper::consumer_sync(1, 128 * C);
  detail::store_swizzled<T, M>(a, whole);
  hopper::fence_proxy_async_shared();
  hopper::consumer_sync(1, 128 * C);
  SharedTile<T, M, K> shared;
  shared.data = whole;
  mma(acc, shared, b);
}

namespace detail {
template <class T>
struct alignas(2 * sizeof(T)) pair_of { T x, y; };

// Whether column pairs (c, c + 1) of `view` from the even column `col` can move as one aligned access each:
// unit column stride, the base and every other stride aligned to a pair.
template <class T, int RANK>
__device__ __forceinline__ bool pairs_aligned(const View<T, RANK>& view, int64_t col) {
  bool ok = view.stride[RANK - 1] == 1 && (reinterpret_cast<uintptr_t>(view.data) % (2 * sizeof(T))) == 0 && col % 2 == 0;
#pragma unroll
  for (int d = 0; d + 1 < RANK; ++d) ok = ok && view.stride[d] % 2 == 0;
  return ok;
}
}  // namespace detail

namespace detail {
// Whether the whole M x N tile at `at` lies inside the view with its column pairs aligned for one access each:
// checked once (uniform over the block), so the common case has no per-element tests.
// Taken only for accumulators of at most kPairsFastPathSize elements a thread: with all the addresses known at
// once the compiler issues every access together, which for larger tiles costs the main loop: the 128 x 256
// tile (128 a thread) spilled 1,884 bytes instead of 824 and 8192^3 ran 8% slower; the 64 x 128 tile (64 a
// thread) had no spills but ran 20-25% slower at 1024^3 and 2048^3 (8.3 -> 10.4 us, 37.8 -> 46.7 us, H200).
inline constexpr int kPairsFastPathSize = 32;
template <int M, int N, class T>
__device__ __forceinline__ bool pairs_inside(const View2<T>& view, Coord at) {
  return pairs_aligned(view, at.col) && at.row >= 0 && at.col >= 0 && at.row + M <= view.extent[0] &&
         at.col + N <= view.extent[1];
}
}  // namespace detail

// Stores an accumulator-layout tile (WgmmaAcc or WgmmaColumnShares): adjacent column pairs as one access where
// the view allows.
template <class T, class U, class L, int TH>
  requires requires { L::per_slice; }
__device__ __forceinline__ void store(const Block<TH>&, const View2<T>& view, Coord at, const Tile<U, L>& t) {
  static_assert(std::is_same_v<T, U>, "store: the tile's element type must equal the view's: cast first");
  constexpr int M = L::rows, N = L::cols;
  if (L::size <= detail::kPairsFastPathSize && detail::pairs_inside<M, N>(view, at)) {
    T* base = view.data + at.row * view.stride[0] + at.col;
#pragma unroll
    for (int e = 0; e < L::size; e += 2)
      *reinterpret_cast<detail::pair_of<T>*>(base + L::row(e) * view.stride[0] + L::col(e)) = {t.v[e], t.v[e + 1]};
    return;
  }
  const bool pairs = detail::pairs_aligned(view, at.col);
  if (pairs && at.col >= 0 && at.col + N <= view.extent[1]) {
    // Every column inside: one row test and one row address per row of the thread, its pairs at constant offsets
    // from there. Tested pair by pair, a 64 x 128 attention output took ~30 instructions a pair, ~1,000 a thread
    // (an eighth of a prefill block's time at 1k keys, Nsight Compute, H100).
#pragma unroll
    for (int e0 = 0; e0 < L::size; e0 += L::per_slice)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int64_t r = at.row + L::row(e0 + 2 * h);
        if (r < 0 || r >= view.extent[0]) continue;
        T* row = view.data + r * view.stride[0] + at.col + L::col(e0 + 2 * h);
#pragma unroll
        for (int j = 0; j < L::per_slice / 4; ++j)
          *reinterpret_cast<detail::pair_of<T>*>(row + 8 * j) = {t.v[e0 + 2 * h + 4 * j], t.v[e0 + 2 * h + 4 * j + 1]};
      }
    return;
  }
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
    if constexpr (requires { L::per_slice; }) {  // an accumulator layout: pairs where the whole tile is inside
      if (L::size <= detail::kPairsFastPathSize && detail::pairs_inside<L::rows, L::cols>(view, at)) {
        const T* base = view.data + at.row * view.stride[0] + at.col;
#pragma unroll
        for (int e = 0; e < L::size; e += 2) {
          const auto pr = *reinterpret_cast<const detail::pair_of<V>*>(base + L::row(e) * view.stride[0] + L::col(e));
          out.v[e] = pr.x;
          out.v[e + 1] = pr.y;
        }
        return out;
      }
    }
    const V padv = convert_element<V>(pad);
#pragma unroll
    for (int e = 0; e < L::size; ++e) {
      const int64_t r = at.row + L::row(e), c = at.col + L::col(e);
      out.v[e] = r >= 0 && r < view.extent[0] && c >= 0 && c < view.extent[1] ? view.data[r * view.stride[0] + c * view.stride[1]] : padv;
    }
    return out;
  }
}

// Scratch slots for accumulator tiles that the same kernel reads back (a split K's partial sums): each thread's
// registers as they are, 16 bytes at a time, chunk j of thread t at floats [4 (j T + t), 4 (j T + t) + 4) of
// the slot (T threads share the tile), so every access is coalesced and none is tested against bounds: the
// scratch holds whole slots of M x N floats. The loads bypass L1 (other blocks wrote the slots).
template <int M, int N, int C, int TH>
__device__ __forceinline__ void store_fragments(const Block<TH>&, const View1<float>& scratch, int64_t slot,
                                                const Tile<float, WgmmaAcc<M, N, C>>& t) {
  using L = WgmmaAcc<M, N, C>;
  static_assert(L::size % 4 == 0, "whole 16-byte chunks");
  float4* base = reinterpret_cast<float4*>(scratch.data + slot * (M * N)) + L::thread();
#pragma unroll
  for (int j = 0; j < L::size / 4; ++j)
    base[j * L::threads] = make_float4(t.v[4 * j], t.v[4 * j + 1], t.v[4 * j + 2], t.v[4 * j + 3]);
}

template <int M, int N, int C, int TH>
__device__ __forceinline__ Tile<float, WgmmaAcc<M, N, C>> load_fragments(const Block<TH>&, const Tile<float, WgmmaAcc<M, N, C>>&,
                                                                         const View1<float>& scratch, int64_t slot) {
  using L = WgmmaAcc<M, N, C>;
  const float4* base = reinterpret_cast<const float4*>(scratch.data + slot * (M * N)) + L::thread();
  Tile<float, L> out;
#pragma unroll
  for (int j = 0; j < L::size / 4; ++j) {
    const float4 q = __ldcg(base + j * L::threads);
    out.v[4 * j] = q.x;
    out.v[4 * j + 1] = q.y;
    out.v[4 * j + 2] = q.z;
    out.v[4 * j + 3] = q.w;
  }
  return out;
}

}  // namespace tessera::tile::cuda
