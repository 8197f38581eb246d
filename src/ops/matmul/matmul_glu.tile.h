// SwiGLU's projection for few activation rows (decode), c = silu(a @ Wg^T) * (a @ Wu^T), on the plan of the
// swap-AB kernel (matmul_swapab.tile.h): the weights W = [Wg; Wu] ([2I, K], gate rows then up rows, as
// silu_and_mul reads its input) are the tall operand, the M activation rows the narrow one. A stage holds a tile
// of gate rows, the up rows I further down that pair with them, and the activations; each consumer keeps one
// small accumulator for each, and the epilogue multiplies them. The [M, 2I] product never reaches memory, and no
// second kernel reads it back.
//
//   for each weight tile (n0) and split s of K, of this block:
//     producer:  for each k of split s: stage <- W[n0 : n0+BW, k..], W[I+n0 : I+n0+BW, k..], A[0 : MT, k..]
//     consumers: gate = up = 0                                    -- BW x MT each, C^T's rows n0 .. n0+BW
//                for each stage: gate += Wg_tile @ A_tile^T;  up += Wu_tile @ A_tile^T
//                one split:  C^T[n0.., 0..] = silu(gate) * up
//                several:    partials[s] = gate (rows n0..), up (rows I' + n0.., I' = I padded to whole tiles)
//                            the last split of the tile to finish: C^T[n0.., 0..] = silu(sum gate) * (sum up)
//
// Edges: the copy engine reads zeros past the weights' 2I rows, M and K; a gate tile that runs past row I reads
// up rows, but only into outputs past I, which the store drops.
#pragma once
#include "ops/matmul/matmul_swapab.tile.h"

namespace tessera::ops::kernels {

template <class T, int BW, int MT, int BK, int STAGES, int CONSUMERS>
struct MatmulSiluAndMulSwapAB {
  static_assert(BW == 64 * CONSUMERS, "each consumer warpgroup owns 64 weight rows");
  using Stage = tile::Stage<tile::SharedTile<T, BW, BK>, tile::SharedTile<T, BW, BK>, tile::SharedTile<T, MT, BK>>;
  using Pipe = tile::PipelineShape<Stage, STAGES, CONSUMERS>;
  static constexpr int threads = Pipe::threads;
  static constexpr size_t shared_bytes = Pipe::shared_bytes;
  static constexpr int bw = BW, mt = MT, bk = BK;

  struct Params {
    tile::TmaTensor<T, BW, BK> w;   // [2I, K]: gate rows, then up rows
    tile::TmaTensor<T, MT, BK> a;   // [M, K], the activations
    tile::View2<T> c;               // [I, M]: C transposed
    tile::View3<float> partials;    // [splits, 2 I', M] (whole tiles) when the schedule splits K
    tile::View2<int32_t> arrivals;  // [tile rows, 1] when it splits K: zero, and left zero
    tile::TileSchedule schedule;    // tile rows over I, one tile column
    int64_t up_row;                 // I: the first up row of W
    int64_t up_partial_row;         // I': the first up row of a partials plane
    int64_t k_tiles, k_tiles_per_split;
  };

  // No kernel of a decode step writes the weights: the first stages of both weight tiles go to L2 while the
  // kernel before this one finishes (launch.h, before_dependencies).
  template <class Block>
  TILE_DEVICE static void before_dependencies(Block& blk, const Params& p) {
    if (blk.bid(0) >= p.schedule.count()) return;
    const tile::TileIndex t = p.schedule.at(blk.bid(0));
    const KSlices ks = k_slices(t.split, p.k_tiles, p.k_tiles_per_split);
    for (int64_t k = 0; k < ks.count && k < STAGES; ++k) {
      prefetch(blk, p.w, {t.row * BW, (ks.first + k) * BK});
      prefetch(blk, p.w, {p.up_row + t.row * BW, (ks.first + k) * BK});
    }
  }

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    auto pipe = make_pipeline<Pipe>(blk);
    for (const tile::TileIndex t : persistent_tiles(blk, p.schedule)) {
      const int64_t n0 = t.row * BW;
      const KSlices ks = k_slices(t.split, p.k_tiles, p.k_tiles_per_split);
      pipe.producer(ks.count, [&](Stage& s, int64_t k) {
        load_async(blk, s.a, p.w, {n0, (ks.first + k) * BK});
        load_async(blk, s.b, p.w, {p.up_row + n0, (ks.first + k) * BK});
        load_async(blk, s.c, p.a, {0, (ks.first + k) * BK});
      });
      pipe.consumers([&] {
        auto gate = mma_accumulator<BW, MT>(pipe);
        auto up = mma_accumulator<BW, MT>(pipe);
        for (const Stage& s : pipe.stages(ks.count, gate, up)) {
          mma(gate, s.a, transpose(s.c));
          mma(up, s.b, transpose(s.c));
        }
        if (p.schedule.splits > 1) {
          store(blk, p.partials[t.split], {n0, 0}, gate);
          store(blk, p.partials[t.split], {p.up_partial_row + n0, 0}, up);
          if (!pipe.last_arrival(&p.arrivals(t.row, 0), p.schedule.splits)) return;
          gate = load_like(blk, gate, p.partials[0], {n0, 0});
          up = load_like(blk, up, p.partials[0], {p.up_partial_row + n0, 0});
          TILE_UNROLL(4)
          for (int64_t s = 1; s < p.schedule.splits; ++s) {
            gate = gate + load_like(blk, gate, p.partials[s], {n0, 0});
            up = up + load_like(blk, up, p.partials[s], {p.up_partial_row + n0, 0});
          }
        }
        store(blk, p.c, {n0, 0}, cast<T>(gate * sigmoid(gate) * up));
      });
    }
  }
};

}  // namespace tessera::ops::kernels
