// Batched matmuls as staged tile kernels (the Hopper path; see matmul_staged.tile.h): one persistent launch
// computes the output tiles of every problem, each tile as the staged matmul does.
//
// BmmStaged: c[b] = epilogue(a[b] @ b[b]^T) for every b of the batch. The schedule's splits are the batch's
// problems (TileSchedule puts them outermost: all tiles of problem 0, then problem 1 ...), K is never cut.
//   for each output tile (m0, n0) of problem b, of this block:
//     producer:  for each k: stage <- plane b of A [m0 : m0+BM, k : k+BK], plane b of B [n0 : n0+BN, k : k+BK]
//     consumers: acc = sum over the stages of A_tile @ B_tile^T
//                c[b][m0.., n0..] = alpha * act(acc + bias) + residual[b]
// (through the copy engine where it can write c, clipped to plane b; else from registers)
// A b shared by every problem (batch stride 0) is one plane read for all: b_shared.
//
// GroupGemmStaged (mixture of experts): G problems of different M stacked in one a [sum M_g, K], delimited by
// row offsets [G + 1] that may live on the GPU; problem g is rows offsets[g] .. offsets[g + 1] of a and c,
// times weights b[g] ([N, K]). The persistent schedule walks the problems' tiles (StackedProblems), so
// empty and short problems cost no blocks.
//   for each output tile (r, n0) of problem g, of this block (its rows first_row .. first_row + rows):
//     producer:  for each k: stage <- A [first_row + r*BM .., k ..], plane g of B [n0 .., k ..]
//     consumers: acc = sum over the stages of A_tile @ B_tile^T
//                c[first_row .. first_row + rows][r*BM.., n0..] = acc
// A tile's rows past its problem's end read the next problem's rows (or zeros past a): their outputs fall
// outside the problem's window of c and are dropped by the store.
#pragma once
#include "ops/matmul/epilogue.tile.h"
#include "tessera/tile/staged.h"
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class T, class TO, int BM, int BN, int BK, int STAGES, int CONSUMERS>
struct BmmStaged {
  using Stage = tile::Stage<tile::SharedTile<T, BM, BK>, tile::SharedTile<T, BN, BK>>;
  using Pipe = tile::PipelineShape<Stage, STAGES, CONSUMERS, tile::Consumers::cooperative, tile::NoResident, 1, TO>;
  static constexpr int threads = Pipe::threads;
  static constexpr size_t shared_bytes = Pipe::shared_bytes;
  static constexpr int bm = BM, bn = BN, bk = BK;

  struct Params {
    tile::TmaTensor<T, BM, BK, 3> a;  // [B, M, K]
    tile::TmaTensor<T, BN, BK, 3> b;  // [B, N, K], or [1, N, K] when b_shared
    bool b_shared;
    tile::View2<const T> bias;        // [M, N] with row stride 0, or empty
    tile::View3<const TO> residual;   // [B, M, N], or empty
    tile::View3<TO> c;                // [B, M, N]
    tile::TmaTensor<TO, 16, 128 / sizeof(TO), 3> c_boxes;  // c for the copy engine, when it can write c
    bool c_by_copy_engine;
    EpilogueParams epilogue;
    tile::TileSchedule schedule;      // splits: the problems of the batch
    int64_t k_tiles;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    auto pipe = make_pipeline<Pipe>(blk);
    for (const tile::TileIndex t : persistent_tiles(blk, p.schedule)) {
      const int64_t batch = t.split, m0 = t.row * BM, n0 = t.col * BN;
      pipe.producer(p.k_tiles, [&](Stage& s, int64_t k) {
        load_async(blk, s.a, p.a, batch, {m0, k * BK});
        load_async(blk, s.b, p.b, p.b_shared ? 0 : batch, {n0, k * BK});
      });
      pipe.consumers([&] {
        auto acc = mma_accumulator<BM, BN>(pipe);
        for (const Stage& s : pipe.stages(p.k_tiles, acc)) mma(acc, s.a, transpose(s.b));
        const tile::View2<const TO> residual = p.epilogue.has_residual ? p.residual[batch] : tile::View2<const TO>{};
        const auto out = cast<TO>(apply_epilogue(blk, acc, p.epilogue, p.bias, residual, {m0, n0}));
        if (p.c_by_copy_engine) pipe.store_async(blk, p.c_boxes, batch, {m0, n0}, out);
        else store(blk, p.c[batch], {m0, n0}, out);
      });
    }
  }
};

template <class T, class TO, int BM, int BN, int BK, int STAGES, int CONSUMERS>
struct GroupGemmStaged {
  using Stage = tile::Stage<tile::SharedTile<T, BM, BK>, tile::SharedTile<T, BN, BK>>;
  using Pipe = tile::PipelineShape<Stage, STAGES, CONSUMERS>;
  static constexpr int threads = Pipe::threads;
  static constexpr size_t shared_bytes = Pipe::shared_bytes;
  static constexpr int bm = BM, bn = BN, bk = BK;

  struct Params {
    tile::TmaTensor<T, BM, BK> a;     // [sum M_g, K]
    tile::TmaTensor<T, BN, BK, 3> b;  // [G, N, K]
    tile::View2<TO> c;                // [sum M_g, N]
    tile::StackedProblems problems;   // the offsets, tiles of BM rows, BN columns
    int64_t k_tiles;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    auto pipe = make_pipeline<Pipe>(blk);
    for (const tile::StackedTileIndex t : persistent_tiles(blk, p.problems)) {
      const int64_t m0 = t.tile.row * BM, n0 = t.tile.col * BN;
      pipe.producer(p.k_tiles, [&](Stage& s, int64_t k) {
        load_async(blk, s.a, p.a, {t.first_row + m0, k * BK});
        load_async(blk, s.b, p.b, t.problem, {n0, k * BK});
      });
      pipe.consumers([&] {
        auto acc = mma_accumulator<BM, BN>(pipe);
        for (const Stage& s : pipe.stages(p.k_tiles, acc)) mma(acc, s.a, transpose(s.b));
        store(blk, p.c.window(t.first_row, 0, t.rows, p.c.extent[1]), {m0, n0}, cast<TO>(acc));
      });
    }
  }
};

}  // namespace tessera::ops::kernels
