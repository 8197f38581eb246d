// Matmul as a tile kernel: each block computes one BM x BN tile of C.
//
//   acc = 0                                       -- in the tensor cores' fragment layout (mma_accumulator)
//   for each BK-wide slice k of the shared dimension:
//     acc += A[m-tile, k] @ B[k, n-tile]          -- B read as [N, K] tiles (mma_nt: a @ b^T), or as [K, N]
//   C[m-tile, n-tile] = alpha * act(acc + bias) + residual
//
// Edges are handled by the views: loads past M, N or K read zeros, stores past M or N are dropped.
// The fragment accumulator made the k loop 1.5-1.6x faster than a Blocked one on aligned rows (H200, session 40,
// bench/probes/generic_matmul_accumulators.cu); asking for slice k + 1 before multiplying slice k made it
// 1.2-1.5x slower again there (two slices of operands held a thread), and is not done.
#pragma once
#include "ops/matmul/epilogue.tile.h"
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

// One BM x BN tile of c = epilogue(a @ b) at (m0, n0): the whole of the generic kernel's work for one block,
// shared by Matmul, Bmm and GroupGemm, which differ only in which views of which matrices they hand it.
template <bool B_KN, int BM, int BN, int BK, class Block, class T, class TO>
TILE_DEVICE void matmul_tile(Block& blk, const tile::View2<const T>& a, const tile::View2<const T>& b,
                             const tile::View2<TO>& c, const tile::View2<const T>& bias,
                             const tile::View2<const TO>& residual, const EpilogueParams& epilogue, int64_t m0,
                             int64_t n0) {
  const int64_t k_total = a.extent[1];
  auto acc = mma_accumulator<BM, BN>(blk);
  for (int64_t k0 = 0; k0 < k_total; k0 += BK) {
    const auto a_tile = load<BM, BK>(blk, a, {m0, k0});
    if constexpr (B_KN) {
      mma(acc, a_tile, load<BK, BN>(blk, b, {k0, n0}));
    } else {
      mma_nt(acc, a_tile, load<BN, BK>(blk, b, {n0, k0}));
    }
  }
  store(blk, c, {m0, n0}, cast<TO>(apply_epilogue(blk, acc, epilogue, bias, residual, {m0, n0})));
}

template <class T, class TO, bool B_KN, int BM, int BN, int BK, int THREADS>
struct Matmul {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const T> a, b;  // a [M, K]; b [N, K] or [K, N]
    tile::View2<const T> bias;  // [M, N] with row stride 0, or empty
    tile::View2<const TO> residual;
    tile::View2<TO> c;
    EpilogueParams epilogue;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    matmul_tile<B_KN, BM, BN, BK>(blk, p.a, p.b, p.c, p.bias, p.residual, p.epilogue, blk.bid(0) * BM,
                                  blk.bid(1) * BN);
  }
};

}  // namespace tessera::ops::kernels
