// Products of register tiles into an accumulator that stays in the tensor cores' fragment layout (sm_80 on):
// what the generic kernels' k loops accumulate into.
//
// mma_accumulator<M, N>(blk) is a zero M x N fp32 tile laid out as WgmmaAcc<M, N, TH / 128> (hopper/wgmma.h):
// warp w of a 128-thread group owns rows 16 w .. 16 w + 15 of each 64-row slice, each 16 x 8 piece of them in
// the D layout of mma.sync m16n8k16, which is also wgmma's. mma(acc, a, b) and mma_nt(acc, a, b) with 16-bit
// Blocked operands stage a and b in shared memory and let each warp multiply its own rows straight into its
// fragments (ldmatrix, mma.sync). Where a is itself a 16-bit tile in the accumulator's layout (a cast tile of
// scores, or rows loaded like the accumulator), its fragments are already in registers and only b is staged
// (FlashAttention-2's p @ v). The Blocked accumulator of plain tiles (zeros<float, M, N>) has to take every
// product back through shared memory into its layout (cuda/reduce.h): at 64 x 64 x 32 that round trip was most
// of the ~740 instructions a warp spent per k slice (Nsight Compute, H200, session 39).
//
// Shapes without such a layout (M not a multiple of 64 per 128 threads, N not a multiple of 8 or over 256,
// more than 64 accumulators a thread, a block that is not whole groups of 128 threads) get the Blocked
// accumulator and the mma of cuda/reduce.h. Other element types, and operands too large for the shared
// buffer, take the scalar form on the same accumulator. Elementwise ops, load_like and store apply to the
// accumulator as to any tile.
#pragma once
#include <type_traits>

#include "tessera/tile/cuda/hopper/wgmma.h"
#include "tessera/tile/cuda/reduce.h"
#include "tessera/tile/cuda/warp_mma.h"

namespace tessera::tile::cuda {

namespace detail {
template <int M, int N, int TH>
constexpr bool fragment_accumulator_fits() {
  if constexpr (TH % 128 != 0 || TH > 1024) return false;
  else return M % (64 * (TH / 128)) == 0 && N % 8 == 0 && N <= 256 && (M / (TH / 128) / 64) * (N / 2) <= 64;
}

template <int M, int N, int TH>
using block_accumulator_layout =
    std::conditional_t<fragment_accumulator_fits<M, N, TH>(), WgmmaAcc<M, N, TH / 128>, Blocked<M, N, TH>>;

// The shared staging of a fragment product's operands: a [M][K] (unless its fragments come from registers,
// A_STAGED false) and b [K][N] (or [N][K] when B_NK), rows padded by 16 bytes so that the 8 rows an ldmatrix
// reads fall in different banks; 4, 8 or 16 KB by size, the buffer the kernel's other warp-level products use
// (warp_mma_buffer).
template <int M, int N, int K, bool B_NK, bool A_STAGED = true>
struct FragmentOperands {
  static constexpr int a_stride = K + 8, b_stride = B_NK ? K + 8 : N + 8;
  static constexpr int operand_bytes = ((A_STAGED ? M * a_stride : 0) + (B_NK ? N : K) * b_stride) * 2;
  static constexpr int bytes = operand_bytes <= 4096 ? 4096 : operand_bytes <= 8192 ? 8192 : 16384;
  static constexpr bool fits = K % 16 == 0 && operand_bytes <= 16384;
};

// One k step (columns [k0, k0 + 16) of a) of a fragment product: each slice's A fragment af[s] times the k step
// of the staged b (rows of B_STRIDE elements), read by ldmatrix, into acc's fragments. One x4 holds the k pairs
// of two 8-column fragments of b, an x2 those of one (as warp_mma in cuda/reduce.h).
template <bool B_NK, int B_STRIDE, class T, int M, int N, int C>
__device__ __forceinline__ void mma_k_step(Tile<float, WgmmaAcc<M, N, C>>& acc, const uint32_t (&af)[WgmmaAcc<M, N, C>::slices][4],
                                           const T* sb, int k0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using L = WgmmaAcc<M, N, C>;
  constexpr int NF = N / 8;
  const int l = lane();
#pragma unroll
  for (int j = 0; j < NF; j += 2) {
    const T* row = B_NK ? sb + (8 * j + l % 8) * B_STRIDE + k0 + 8 * ((l / 8) % 2) : sb + (k0 + l % 16) * B_STRIDE + 8 * j;
    if (j + 1 < NF) {
      uint32_t bf[4];
      warp::ldmatrix_x4<!B_NK>(bf, uint32_t(__cvta_generic_to_shared(row + (B_NK ? 8 * B_STRIDE : 8) * (l / 16))));
#pragma unroll
      for (int s = 0; s < L::slices; ++s) {
        warp::mma_m16n8k16<T>(&acc.v[s * L::per_slice + 4 * j], af[s], bf[0], bf[1]);
        warp::mma_m16n8k16<T>(&acc.v[s * L::per_slice + 4 * (j + 1)], af[s], bf[2], bf[3]);
      }
    } else {
      uint32_t bf[2];
      warp::ldmatrix_x2<!B_NK>(bf, uint32_t(__cvta_generic_to_shared(row)));
#pragma unroll
      for (int s = 0; s < L::slices; ++s) warp::mma_m16n8k16<T>(&acc.v[s * L::per_slice + 4 * j], af[s], bf[0], bf[1]);
    }
  }
#else
  (void)acc; (void)af; (void)sb; (void)k0; __trap();
#endif
}

// acc += a @ b (b [K, N]) or, B_NK, a @ b^T (b [N, K]), each warp into its own fragments of acc.
template <bool B_NK, class T, int M, int N, int K, int C, int TH, class LB>
__device__ __forceinline__ void fragment_mma(Tile<float, WgmmaAcc<M, N, C>>& acc, const Tile<T, Blocked<M, K, TH>>& a,
                                             const Tile<T, LB>& b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using L = WgmmaAcc<M, N, C>;
  using S = FragmentOperands<M, N, K, B_NK>;
  T* const sa = reinterpret_cast<T*>(warp_mma_buffer<S::bytes>());
  T* const sb = sa + M * S::a_stride;
  block_sync();  // the last product's readers of the buffer are done
  stage_rows16<S::a_stride>(sa, a);
  stage_rows16<S::b_stride>(sb, b);
  block_sync();
  const int l = lane();
  const int row0 = L::first_row() + 16 * (hopper::thread_in_warpgroup() / 32);
#pragma unroll
  for (int k0 = 0; k0 < K; k0 += 16) {
    // a: lane l addresses row l % 16 of the warp's 16 rows at column k0 + 8 (l / 16).
    uint32_t af[L::slices][4];
#pragma unroll
    for (int s = 0; s < L::slices; ++s)
      warp::ldmatrix_x4<false>(af[s], uint32_t(__cvta_generic_to_shared(sa + (row0 + 64 * s + l % 16) * S::a_stride + k0 + 8 * (l / 16))));
    mma_k_step<B_NK, S::b_stride>(acc, af, sb, k0);
  }
#else
  (void)acc; (void)a; (void)b; __trap();
#endif
}

// The same with a in acc's own layout: its A fragments are its registers (hopper::a_fragment), b alone staged.
template <bool B_NK, class T, int M, int N, int K, int C, class LB>
__device__ __forceinline__ void fragment_mma_registers(Tile<float, WgmmaAcc<M, N, C>>& acc, const Tile<T, WgmmaAcc<M, K, C>>& a,
                                                       const Tile<T, LB>& b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using L = WgmmaAcc<M, N, C>;
  using S = FragmentOperands<M, N, K, B_NK, false>;
  T* const sb = reinterpret_cast<T*>(warp_mma_buffer<S::bytes>());
  block_sync();  // the last product's readers of the buffer are done
  stage_rows16<S::b_stride>(sb, b);
  block_sync();
#pragma unroll
  for (int k0 = 0; k0 < K; k0 += 16) {
    uint32_t af[L::slices][4];
#pragma unroll
    for (int s = 0; s < L::slices; ++s) hopper::a_fragment(af[s], a, s, k0 / 16);
    mma_k_step<B_NK, S::b_stride>(acc, af, sb, k0);
  }
#else
  (void)acc; (void)a; (void)b; __trap();
#endif
}

template <class T>
inline constexpr bool fragment_operand_v = std::is_same_v<T, bf16> || std::is_same_v<T, f16>;

// Whether a product into a fragment accumulator runs on the tensor cores (sm_80 on, 16-bit operands of one
// type, operands that fit the shared buffer), or takes the scalar form.
template <class TA, class TB, int M, int N, int K, bool B_NK, bool A_STAGED>
constexpr bool fragment_tensor_cores() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return std::is_same_v<TA, TB> && fragment_operand_v<TA> && FragmentOperands<M, N, K, B_NK, A_STAGED>::fits;
#else
  return false;
#endif
}
}  // namespace detail

// A zero M x N accumulator for mma over register tiles, in the tensor cores' fragment layout where the shape
// has one (see above), else a Blocked tile.
template <int M, int N, int TH>
__device__ __forceinline__ Tile<float, detail::block_accumulator_layout<M, N, TH>> mma_accumulator(const Block<TH>&) {
  Tile<float, detail::block_accumulator_layout<M, N, TH>> acc;
#pragma unroll
  for (int e = 0; e < detail::block_accumulator_layout<M, N, TH>::size; ++e) acc.v[e] = 0.f;
  return acc;
}

// acc += a @ b into a fragment accumulator (mma_accumulator).
template <class TA, class TB, int M, int N, int K, int C, int TH>
__device__ __forceinline__ void mma(Tile<float, WgmmaAcc<M, N, C>>& acc, const Tile<TA, Blocked<M, K, TH>>& a,
                                    const Tile<TB, Blocked<K, N, TH>>& b) {
  static_assert(TH == 128 * C, "a fragment accumulator belongs to all of the block's threads");
  constexpr bool tensor_cores = detail::fragment_tensor_cores<TA, TB, M, N, K, false, true>();
  if constexpr (tensor_cores) detail::fragment_mma<false>(acc, a, b);
  else detail::scalar_mma(acc, a, b);
}

// acc += a @ b^T, b given as its rows [N, K], into a fragment accumulator.
template <class TA, class TB, int M, int N, int K, int C, int TH>
__device__ __forceinline__ void mma_nt(Tile<float, WgmmaAcc<M, N, C>>& acc, const Tile<TA, Blocked<M, K, TH>>& a,
                                       const Tile<TB, Blocked<N, K, TH>>& b) {
  static_assert(TH == 128 * C, "a fragment accumulator belongs to all of the block's threads");
  constexpr bool tensor_cores = detail::fragment_tensor_cores<TA, TB, M, N, K, true, true>();
  if constexpr (tensor_cores) detail::fragment_mma<true>(acc, a, b);
  else detail::scalar_mma(acc, a, transpose(b));
}

// acc += a @ b, a a 16-bit tile in acc's own layout (its fragments in registers), b [K, N] a register tile.
template <class TA, class TB, int M, int N, int K, int C, int TH>
__device__ __forceinline__ void mma(Tile<float, WgmmaAcc<M, N, C>>& acc, const Tile<TA, WgmmaAcc<M, K, C>>& a,
                                    const Tile<TB, Blocked<K, N, TH>>& b) {
  static_assert(TH == 128 * C, "a fragment accumulator belongs to all of the block's threads");
  constexpr bool tensor_cores = detail::fragment_tensor_cores<TA, TB, M, N, K, false, false>();
  if constexpr (tensor_cores) detail::fragment_mma_registers<false>(acc, a, b);
  else detail::scalar_mma(acc, a, b);
}

// acc += a @ b^T, a in acc's own layout as above, b given as its rows [N, K].
template <class TA, class TB, int M, int N, int K, int C, int TH>
__device__ __forceinline__ void mma_nt(Tile<float, WgmmaAcc<M, N, C>>& acc, const Tile<TA, WgmmaAcc<M, K, C>>& a,
                                       const Tile<TB, Blocked<N, K, TH>>& b) {
  static_assert(TH == 128 * C, "a fragment accumulator belongs to all of the block's threads");
  constexpr bool tensor_cores = detail::fragment_tensor_cores<TA, TB, M, N, K, true, false>();
  if constexpr (tensor_cores) detail::fragment_mma_registers<true>(acc, a, b);
  else detail::scalar_mma(acc, a, transpose(b));
}

}  // namespace tessera::tile::cuda
