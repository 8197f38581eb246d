// Matmul as a tile kernel: each block computes one BM x BN tile of C.
//
//   acc = 0
//   for each BK-wide slice k of the shared dimension:
//     acc += A[m-tile, k] @ B[k, n-tile]          -- B read as [N, K] tiles and transposed, or as [K, N]
//   C[m-tile, n-tile] = alpha * act(acc + bias) + residual
//
// Edges are handled by the views: loads past M, N or K read zeros, stores past M or N are dropped.
#pragma once
#include "ops/matmul/epilogue.tile.h"
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

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
    const int64_t m0 = blk.bid(0) * BM, n0 = blk.bid(1) * BN;
    const int64_t k_total = p.a.extent[1];
    auto acc = zeros<float, BM, BN>(blk);
    for (int64_t k0 = 0; k0 < k_total; k0 += BK) {
      const auto a = load<BM, BK>(blk, p.a, {m0, k0});
      if constexpr (B_KN) {
        mma(acc, a, load<BK, BN>(blk, p.b, {k0, n0}));
      } else {
        mma(acc, a, transpose(load<BN, BK>(blk, p.b, {n0, k0})));
      }
    }
    store(blk, p.c, {m0, n0}, cast<TO>(apply_epilogue(blk, acc, p.epilogue, p.bias, p.residual, {m0, n0})));
  }
};

}  // namespace tessera::ops::kernels
