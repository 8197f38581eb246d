// SwiGLU's projection for few activation rows (decode), c = silu(a @ Wg^T) * (a @ Wu^T), on the plan of the
// swap-AB kernel (matmul_swapab.tile.h): the weights W = [Wg; Wu] ([2I, K], gate rows then up rows, as
// silu_and_mul reads its input) are the tall operand, the M activation rows the narrow one. A stage holds a tile
// of gate rows, the up rows I further down that pair with them, and the activations; each consumer keeps one
// small accumulator for each, and the epilogue multiplies them. The [M, 2I] product never reaches memory, and no
// second kernel reads it back.
//
//   for each weight tile (n0) and split s of K, of this block (or part s of a tile: STREAM_K):
//     producer:  for each k of split s: stage <- W[n0 : n0+BW, k..], W[I+n0 : I+n0+BW, k..], A[0 : MT, k..]
//     consumers: gate = up = 0                                    -- BW x MT each, C^T's rows n0 .. n0+BW
//                for each stage: gate += Wg_tile @ A_tile^T;  up += Wu_tile @ A_tile^T
//                one split:  C^T[n0.., 0..] = silu(gate) * up
//                several:    partials[s] = gate (rows n0..), up (rows I' + n0.., I' = I padded to whole tiles)
//                            the last split of the tile to finish: C^T[n0.., 0..] = silu(sum gate) * (sum up)
//
// K is cut over blocks as the swap-AB matmul's is: splits of the tile schedule, or stream-K (STREAM_K: every
// block an equal run of slices across tile boundaries, a tile two blocks share finished by the last of them).
// Edges: the copy engine reads zeros past the weights' 2I rows, M and K; a gate tile that runs past row I reads
// up rows, but only into outputs past I, which the store drops.
#pragma once
#include "ops/matmul/matmul_swapab.tile.h"

namespace tessera::ops::kernels {

template <class T, int BW, int MT, int BK, int STAGES, int CONSUMERS, bool STREAM_K = false>
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
    tile::View3<float> partials;    // [parts, 2 I', M] (whole tiles) when K is cut over blocks
    tile::View2<int32_t> arrivals;  // [tile rows, 1] when it is: zero, and left zero
    tile::TileSchedule schedule;    // tile rows over I, one tile column (STREAM_K = false)
    tile::StreamKSchedule stream_k; // tile rows x k_tiles slices (STREAM_K = true)
    int64_t up_row;                 // I: the first up row of W
    int64_t up_partial_row;         // I': the first up row of a partials plane
    int64_t k_tiles, k_tiles_per_split;
  };

  // No kernel of a decode step writes the weights: the first stages of both weight tiles go to L2 while the
  // kernel before this one finishes (launch.h, before_dependencies).
  template <class Block>
  TILE_DEVICE static void before_dependencies(Block& blk, const Params& p) {
    if (!has_work<STREAM_K>(p, blk.bid(0))) return;
    const tile::KSegment w = first_segment<STREAM_K>(p, blk.bid(0));
    for (int64_t k = 0; k < w.k_count && k < STAGES; ++k) {
      prefetch(blk, p.w, {w.tile * BW, (w.k_first + k) * BK});
      prefetch(blk, p.w, {p.up_row + w.tile * BW, (w.k_first + k) * BK});
    }
  }

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    auto pipe = make_pipeline<Pipe>(blk);
    auto compute = [&](const tile::KSegment& w) {
      const int64_t n0 = w.tile * BW;
      pipe.producer(w.k_count, [&](Stage& s, int64_t k) {
        load_async(blk, s.a, p.w, {n0, (w.k_first + k) * BK});
        load_async(blk, s.b, p.w, {p.up_row + n0, (w.k_first + k) * BK});
        load_async(blk, s.c, p.a, {0, (w.k_first + k) * BK});
      });
      pipe.consumers([&] {
        auto gate = mma_accumulator<BW, MT>(pipe);
        auto up = mma_accumulator<BW, MT>(pipe);
        for (const Stage& s : pipe.stages(w.k_count, gate, up)) {
          mma(gate, s.a, transpose(s.c));
          mma(up, s.b, transpose(s.c));
        }
        if (w.parts > 1) {
          store(blk, p.partials[w.part], {n0, 0}, gate);
          store(blk, p.partials[w.part], {p.up_partial_row + n0, 0}, up);
          if (!pipe.last_arrival(&p.arrivals(w.tile, 0), w.parts)) return;
          gate = load_like(blk, gate, p.partials[0], {n0, 0});
          up = load_like(blk, up, p.partials[0], {p.up_partial_row + n0, 0});
          TILE_UNROLL(4)
          for (int64_t s = 1; s < w.parts; ++s) {
            gate = gate + load_like(blk, gate, p.partials[s], {n0, 0});
            up = up + load_like(blk, up, p.partials[s], {p.up_partial_row + n0, 0});
          }
        }
        store(blk, p.c, {n0, 0}, cast<T>(gate * sigmoid(gate) * up));
      });
    };
    for_each_segment<STREAM_K>(blk, p, compute);
  }
};

}  // namespace tessera::ops::kernels
