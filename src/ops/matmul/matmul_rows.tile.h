// Matmul for one to a few activation rows (decode at batch 1 to 4) as a streaming tile kernel on the CUDA
// cores: C^T[N, M] = B[N, K] @ A[M, K]^T, where the only thing that matters is reading B, the weights, once at
// the memory's full rate. A block owns BN weight rows and reads them BN x BK at a time; each weight tile is
// multiplied by the M activation rows (a 1 x BK row broadcast over the tile) into M fp32 accumulators of the
// tile's own shape, which are reduced over their columns once, at the end:
//
//   for each k0:  w = B[n0 : n0+BN, k0 : k0+BK]                 -- 16-byte loads: the kernel's DRAM traffic
//                 acc_m += w * A[m, k0 : k0+BK]      (m < M)    -- the activations stay in L1 / L2
//   C^T[n0 : n0+BN, m] = epilogue(row_sum(acc_m))
//
// Why not the tensor cores: their narrowest tile of activations is 8 or 16 rows, so for M = 1 the swap-AB
// kernel (matmul_swapab.tile.h) is at best 1/16 useful work, and its pipeline (216 KB of shared memory, one
// block per multiprocessor) takes microseconds to fill and to drain, a large share of a 10-60 us decode
// projection. Here blocks are small: several per multiprocessor start streaming at once, and the last wave is
// short. M is the padded row count (rows past A's are zeros; their outputs are dropped), so M = 4 serves 2-4.
// Edges: tiles past N or K read zeros (the edge path, out of line: a decode projection's K is a multiple of BK).
#pragma once
#include "ops/matmul/epilogue.tile.h"
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class T, class TO, int M, int BN, int BK, int THREADS>
struct MatmulFewRows {
  static_assert(M >= 1 && M <= 8, "few rows: 1 to 8");
  static constexpr int threads = THREADS, bn = BN;
  struct Params {
    tile::View2<const T> a;         // [M', K], M' <= M: the activations
    tile::View2<const T> b;         // [N, K]: the weights
    tile::View2<TO> c;              // [N, M']: C transposed
    tile::View2<const T> bias;      // [N, M'] with column stride 0, or empty
    tile::View2<const TO> residual; // [N, M']: the residual transposed, or empty
    EpilogueParams epilogue;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t n0 = blk.bid(0) * BN, K = p.a.extent[1];
    using Acc = decltype(zeros<float, BN, BK>(blk));
    Acc acc[M];
    // The loops over m are unrolled (M <= 8): indexed by a variable, the accumulators would live in local memory.
    TILE_UNROLL(8)
    for (int m = 0; m < M; ++m) acc[m] = zeros<float, BN, BK>(blk);
    for (int64_t k0 = 0; k0 < K; k0 += BK) {
      const auto w = cast<float>(load<BN, BK>(blk, p.b, {n0, k0}, 0.f, tile::cold_edges));
      TILE_UNROLL(8)
      for (int m = 0; m < M; ++m) acc[m] = acc[m] + w * cast<float>(load<1, BK>(blk, p.a, {m, k0}));
    }
    TILE_UNROLL(8)
    for (int m = 0; m < M; ++m) {
      const auto dot = row_sum(acc[m]);  // BN x 1: C^T[n0 .., m]
      store(blk, p.c, {n0, m}, cast<TO>(apply_epilogue(blk, dot, p.epilogue, p.bias, p.residual, {n0, m})));
    }
  }
};

}  // namespace tessera::ops::kernels
