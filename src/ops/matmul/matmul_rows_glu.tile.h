// SwiGLU's gate/up projection for one activation row (decode at batch 1), c = silu(a @ Wg^T) * (a @ Wu^T), as a
// streaming tile kernel on the CUDA cores, the plan of the few-rows matmul (matmul_rows.tile.h): a block owns BI
// outputs, reads their BI gate rows and the BI up rows I further down BI x BK at a time, DEPTH tiles of each
// asked for before any is used, and multiplies both by the activation row:
//
//   for each k0, DEPTH tiles at a time:
//                 g_d = Wg[i0 : i0+BI, k0+d*BK : ...],  u_d = Wu[i0 : i0+BI, ...]   -- asked for first
//                 gate += chunk_sums(g_d * a[k0+d*BK : ...]);  up += chunk_sums(u_d * a[...])  -- fp32
//   C^T[i0 : i0+BI] = silu(row_sum(gate)) * row_sum(up)
//
// Why: at one row the projection is the weights' bytes, and the fused swap-AB form (matmul_glu.tile.h) halves
// its stages to hold both tiles; the matmul then silu_and_mul pays a second kernel and its boundary (~3 us a
// layer). Here a block holds as many bytes in flight as the plain few-rows kernel (BI = 2 gate + 2 up rows
// against 4 rows) and writes the product, never the [1, 2I] projection.
// The sums are running chunk sums (one register a thread for 8 columns of a weight row, where an accumulator of
// the tile's shape takes 8): the registers they free let 5 blocks share a multiprocessor instead of 4, and a
// batch-1 decode step was 2.5% faster with them and the q/k/v kernel's (bench/results/2026-11-30-h200-session51).
// Edges: tiles past I or K read zeros (cold path); outputs past I are dropped by the store.
// With Options::weights_settled, the first DEPTH tiles of each are asked for before the wait for the kernel
// before this one (tile/group_stream.h), as in the few-rows matmul.
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class T, int BI, int BK, int THREADS, int DEPTH>
struct MatmulFewRowsSiluAndMul {
  static_assert(DEPTH >= 1 && DEPTH <= 8, "few rows: 1 to 8 tiles of each in flight");
  static constexpr int threads = THREADS, bi = BI;
  static constexpr bool waits_for_predecessor = true;  // after the first weight tiles (group_stream.h)
  struct Params {
    tile::View2<const T> a;           // [1, K]: the activation row
    tile::View2<const T> gate, up;    // [I, K] each: the gate rows and the up rows of W = [Wg; Wu]
    tile::View2<T> c;                 // [I, 1]: C transposed
    bool weights_settled;             // gate and up were not written by the kernel before (Options::weights_settled)
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t i0 = blk.bid(0) * BI, K = p.a.extent[1];
    auto gate = chunk_sums(zeros<float, BI, BK>(blk));
    auto up = chunk_sums(zeros<float, BI, BK>(blk));
    // Each weight byte is read once a call (read_once: it passes through L2 without pushing out what is read again).
    const auto weight_tile = [&](const tile::View2<const T>& w, int64_t k) {
      return load<BI, BK>(blk, w, {i0, k}, 0.f, tile::cold_edges, tile::read_once);
    };
    using W = decltype(weight_tile(p.gate, 0));
    W wg[DEPTH], wu[DEPTH];
    const auto ask = [&](int64_t from) {
      TILE_UNROLL(8)
      for (int d = 0; d < DEPTH; ++d) {
        wg[d] = weight_tile(p.gate, from + d * BK);
        wu[d] = weight_tile(p.up, from + d * BK);
      }
    };
    const auto use = [&](int64_t from) {
      TILE_UNROLL(8)
      for (int d = 0; d < DEPTH; ++d) {
        const auto x = cast<float>(load<1, BK>(blk, p.a, {0, from + d * BK}));
        gate = gate + chunk_sums(cast<float>(wg[d]) * x);
        up = up + chunk_sums(cast<float>(wu[d]) * x);
      }
    };
    tile::GroupStream groups(K, int64_t(DEPTH) * BK);
    groups.start(blk, p.weights_settled, ask);
    for (int64_t k0 = groups.run(ask, use); k0 < K; k0 += BK) {
      const auto x = cast<float>(load<1, BK>(blk, p.a, {0, k0}));
      gate = gate + chunk_sums(cast<float>(weight_tile(p.gate, k0)) * x);
      up = up + chunk_sums(cast<float>(weight_tile(p.up, k0)) * x);
    }
    const auto g = row_sum(gate), u = row_sum(up);  // BI x 1
    store(blk, p.c, {i0, 0}, cast<T>(g * sigmoid(g) * u));
  }
};

}  // namespace tessera::ops::kernels
