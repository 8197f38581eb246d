// Matmul for one to a few activation rows (decode at batch 1 to 4) as a streaming tile kernel on the CUDA
// cores: C^T[N, M] = B[N, K] @ A[M, K]^T, where the only thing that matters is reading B, the weights, once at
// the memory's full rate. A block owns BN weight rows and reads them BN x BK at a time; each weight tile is
// multiplied by the M activation rows (a 1 x BK row broadcast over the tile) into M fp32 accumulators of the
// tile's own shape (or of its 8-column chunk sums), which are reduced over their columns once, at the end:
//
//   for each k0, DEPTH tiles at a time:
//                 w_d = B[n0 : n0+BN, k0+d*BK : k0+(d+1)*BK]   -- all DEPTH tiles asked for first: 16-byte loads,
//                                                                  the kernel's DRAM traffic
//                 acc_m += w_d * A[m, k0+d*BK : ...]  (m < M)   -- the activations stay in L1 / L2
//   C^T[n0 : n0+BN, m] = epilogue(row_sum(acc_m))
//
// Why DEPTH: a block's time is its chain of round trips to DRAM, one per group of tiles it asks for before it
// uses them. With one tile at a time, a 1 x 4096 x 4096 projection paid ~4.8 us over its bytes' time (session
// 23); with DEPTH = 2 x 4 rows (8 loads of 16 bytes in flight a thread, the tiles kept 16-bit until used) it
// is 9-17% faster at 1 x {4096, 6144, 28672, 128256} x 4096 and 1 x 4096 x 14336, and faster than cuBLAS
// there (bench/results/2026-11-26-h200-session25). K past the last whole group is taken a tile at a time.
//
// Why not the tensor cores: their narrowest tile of activations is 8 or 16 rows, so for M = 1 the swap-AB
// kernel (matmul_swapab.tile.h) is at best 1/16 useful work, and its pipeline (216 KB of shared memory, one
// block per multiprocessor) takes microseconds to fill and to drain, a large share of a 10-60 us decode
// projection. Here blocks are small: several per multiprocessor start streaming at once, and the last wave is
// short. M is the padded row count (rows past A's are zeros; their outputs are dropped), so M = 4 serves 2-4.
// Edges: tiles past N or K read zeros (the edge path, out of line: a decode projection's K is a multiple of BK).
//
// Where the caller promises that the kernel before this one did not write the weights (Options::weights_settled:
// it wrote the activations), the first DEPTH weight tiles are asked for before the wait for it (tile/group_stream.h):
// the blocks of the first wave start while that kernel finishes, and their first round trip to DRAM passes
// meanwhile. Later blocks find it finished and lose nothing.
#pragma once
#include "ops/matmul/epilogue.tile.h"
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

// CHUNKED: the accumulators are running chunk sums (chunk_sums: one value per 8 columns of a tile row, in the
// registers of the thread that holds them) instead of the tile's shape: BN registers a thread for each of the M
// rows instead of 8 BN. At one row that lets 5 blocks share a multiprocessor (launch.h, rows1_bn4_x2_chunked);
// for 2-4 rows it stayed 1.4-2.1x slower than swap-AB (not profiled: a weight tile there also loads and converts
// four activation rows as large as itself).
template <class T, class TO, int M, int BN, int BK, int THREADS, int DEPTH = 1, bool CHUNKED = false>
struct MatmulFewRows {
  static_assert(M >= 1 && M <= 8, "few rows: 1 to 8");
  static_assert(DEPTH >= 1 && DEPTH <= 8, "few rows: 1 to 8 tiles in flight");
  static constexpr int threads = THREADS, bn = BN;
  static constexpr bool waits_for_predecessor = true;  // after the first weight tiles (group_stream.h)
  struct Params {
    tile::View2<const T> a;         // [M', K], M' <= M: the activations
    tile::View2<const T> b;         // [N, K]: the weights
    tile::View2<TO> c;              // [N, M']: C transposed
    tile::View2<const T> bias;      // [N, M'] with column stride 0, or empty
    tile::View2<const TO> residual; // [N, M']: the residual transposed, or empty
    EpilogueParams epilogue;
    bool weights_settled;           // b was not written by the kernel before (Options::weights_settled)
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t n0 = blk.bid(0) * BN, K = p.a.extent[1];
    const auto accumulator = [&] {
      if constexpr (CHUNKED) return chunk_sums(zeros<float, BN, BK>(blk));
      else return zeros<float, BN, BK>(blk);
    };
    const auto accumulate = [](const auto& acc, const auto& product) {
      if constexpr (CHUNKED) return acc + chunk_sums(product);
      else return acc + product;
    };
    using Acc = decltype(accumulator());
    Acc acc[M];
    // The loops over m are unrolled (M <= 8): indexed by a variable, the accumulators would live in local memory.
    TILE_UNROLL(8)
    for (int m = 0; m < M; ++m) acc[m] = accumulator();
    // Each weight byte is read once a call (read_once: it passes through L2 without pushing out what is read again).
    const auto weight_tile = [&](int64_t k) { return load<BN, BK>(blk, p.b, {n0, k}, 0.f, tile::cold_edges, tile::read_once); };
    using W = decltype(weight_tile(0));
    W w[DEPTH];
    const auto ask = [&](int64_t from) {
      TILE_UNROLL(8)
      for (int d = 0; d < DEPTH; ++d) w[d] = weight_tile(from + d * BK);
    };
    const auto use = [&](int64_t from) {
      TILE_UNROLL(8)
      for (int d = 0; d < DEPTH; ++d) {
        const auto wd = cast<float>(w[d]);
        TILE_UNROLL(8)
        for (int m = 0; m < M; ++m) acc[m] = accumulate(acc[m], wd * cast<float>(load<1, BK>(blk, p.a, {m, from + d * BK})));
      }
    };
    tile::GroupStream groups(K, int64_t(DEPTH) * BK);
    groups.start(blk, p.weights_settled, ask);
    // The residual, asked for before the loop (after the wait: the kernel before may have written it) and kept
    // unconverted until the epilogue, so that its latency passes with the weights' instead of adding a round trip
    // to the end of every block: a batch-1 decode step, whose o and down projections add into the residual
    // stream, 1.2% faster (H200, bench/results/2026-12-01-h200-session57, run 4).
    using Column = decltype(row_sum(accumulator()));  // BN x 1
    decltype(load_like(blk, Column{}, p.residual, {0, 0})) residual[M]{};
    if (p.epilogue.has_residual) {
      TILE_UNROLL(8)
      for (int m = 0; m < M; ++m) residual[m] = load_like(blk, Column{}, p.residual, {n0, m});
    }
    for (int64_t k0 = groups.run(ask, use); k0 < K; k0 += BK) {
      const auto wk = cast<float>(weight_tile(k0));
      TILE_UNROLL(8)
      for (int m = 0; m < M; ++m) acc[m] = accumulate(acc[m], wk * cast<float>(load<1, BK>(blk, p.a, {m, k0})));
    }
    EpilogueParams without_residual = p.epilogue;
    without_residual.has_residual = false;
    TILE_UNROLL(8)
    for (int m = 0; m < M; ++m) {
      const auto dot = row_sum(acc[m]);  // BN x 1: C^T[n0 .., m]
      auto out = apply_epilogue(blk, dot, without_residual, p.bias, p.residual, {n0, m});
      if (p.epilogue.has_residual) out = out + cast<float>(residual[m]);  // added last, as apply_epilogue would
      store(blk, p.c, {n0, m}, cast<TO>(out));
    }
  }
};

}  // namespace tessera::ops::kernels
