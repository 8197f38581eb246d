// SwiGLU's projection for many activation rows (prefill), c = silu(a @ Wg^T) * (a @ Wu^T), on the plan of the
// staged matmul (matmul_staged.tile.h): a persistent block computes BM x BI tiles of C; a stage holds a slice of
// A, the slice of gate rows of the tile and the up rows I further down that pair with them, and the consumers
// keep one accumulator for each. The epilogue multiplies them, so the [M, 2I] product (twice the output) is
// never written, and no second kernel reads it back.
//
//   for each output tile (m0, i0), of this block:
//     producer:  for each k: stage <- A[m0 : m0+BM, k..], W[i0 : i0+BI, k..], W[I+i0 : I+i0+BI, k..]
//     consumers: gate = up = 0                                    -- BM x BI each
//                for each stage: gate += A_tile @ Wg_tile^T;  up += A_tile @ Wu_tile^T
//                C[m0.., i0..] = silu(gate) * up
//
// Two BI-wide accumulators are the registers of one 2BI-wide one: the 128 x 128 tile costs what the plain
// matmul's 128 x 256 does. K is not split: the kernel is for M past the swap-AB kernel's 64 rows, where the
// tiles fill the multiprocessors. Edges: the copy engine reads zeros past M, K and the weights' 2I rows; a gate
// tile that runs past row I reads up rows, but only into outputs past I, which the store drops.
#pragma once
#include "ops/matmul/epilogue.tile.h"
#include "tessera/tile/staged.h"
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class T, int BM, int BI, int BK, int STAGES, int CONSUMERS,
          tile::Consumers MODE = tile::Consumers::cooperative>
struct MatmulSiluAndMulStaged {
  using Stage = tile::Stage<tile::SharedTile<T, BM, BK>, tile::SharedTile<T, BI, BK>, tile::SharedTile<T, BI, BK>>;
  using Pipe = tile::PipelineShape<Stage, STAGES, CONSUMERS, MODE, tile::NoResident, 1, T>;  // C: store_async
  static constexpr int threads = Pipe::threads;
  static constexpr size_t shared_bytes = Pipe::shared_bytes;
  static constexpr int bm = BM, bi = BI, bk = BK;

  struct Params {
    tile::TmaTensor<T, BM, BK> a;  // [M, K], the activations
    tile::TmaTensor<T, BI, BK> w;  // [2I, K]: gate rows, then up rows
    tile::View2<T> c;              // [M, I]
    tile::TmaTensor<T, 16, 128 / sizeof(T)> c_boxes;  // C for the copy engine, when it can write C
    bool c_by_copy_engine;                            // (tma_store_compatible)
    tile::TileSchedule schedule;   // BM x BI tiles of C
    int64_t up_row;                // I: the first up row of W
    int64_t k_tiles;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    auto pipe = make_pipeline<Pipe>(blk);
    for (const tile::TileIndex t : persistent_tiles(blk, p.schedule)) {
      const int64_t m0 = t.row * BM, i0 = t.col * BI;
      pipe.producer(p.k_tiles, [&](Stage& s, int64_t k) {
        load_async(blk, s.a, p.a, {m0, k * BK});
        load_async(blk, s.b, p.w, {i0, k * BK});
        load_async(blk, s.c, p.w, {p.up_row + i0, k * BK});
      });
      pipe.consumers([&] {
        auto gate = mma_accumulator<BM, BI>(pipe);
        auto up = mma_accumulator<BM, BI>(pipe);
        for (const Stage& s : pipe.stages(p.k_tiles, gate, up)) {
          mma(gate, s.a, transpose(s.b));
          mma(up, s.a, transpose(s.c));
        }
        store_output(blk, pipe, p.c, p.c_boxes, p.c_by_copy_engine, {m0, i0}, cast<T>(gate * sigmoid(gate) * up));
      });
    }
  }
};

}  // namespace tessera::ops::kernels
