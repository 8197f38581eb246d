// Matmul for few rows of activations (decode: M <= 64) as a staged tile kernel with the operands swapped:
// C^T[N, M] = B[N, K] @ A[M, K]^T. The weights are the tall operand, so a tile of BW weight rows fills the
// tensor cores' 64-row side and the M activation rows (padded to MT: 16, 32 or 64) are the narrow one. No
// tensor-core work goes to padding rows, each consumer's accumulator is small (64 x MT fp32: MT / 2 registers
// a thread), and what a stage holds is almost all weight bytes: the shared memory goes to many stages, so
// each multiprocessor keeps 100-200 KB of weights in flight, what streaming them at full bandwidth takes.
//
//   for each weight tile (n0) and split s of K, of this block:
//     producer:  for each k of split s: stage <- B[n0 : n0+BW, k : k+BK], A[0 : MT, k : k+BK]
//     consumers: acc = 0                                          -- BW x MT, C^T's rows n0 .. n0+BW
//                for each stage: acc += B_tile @ A_tile^T
//                one split:  C^T[n0.., 0..] = alpha * act(acc + bias) + residual
//                several:    partial[s][n0.., 0..] = acc
//                            the last split of the tile to finish: C^T[n0.., 0..] = epilogue(sum of partials)
//                            (partials: [splits, N, M] padded to whole BW x MT tiles)
//
// C^T, the bias and the residual are views with their strides swapped (the launcher makes them): the
// epilogue is the normal path's, the bias a column vector here (one value per output column n of C).
// Two ways to finish a split K, both offered to the autotuner (neither is clearly better without measuring):
//   FIXUP = true:  in the kernel, as MatmulStaged does: the partial tiles are tiny (BW x MT fp32), so the last
//                  split to arrive reads them back at little cost, and there is no second launch (nor its gap);
//                  but that last block adds a fence, an atomic and `splits` reads in series to its tail.
//   FIXUP = false: every split stores its partial tile and is done; SplitKReduce, a second small kernel, sums
//                  the partials over all of C in parallel and runs the epilogue (no fence, no counters).
// How K is cut over blocks, the other template choice:
//   STREAM_K = false: the tile schedule, each tile in `splits` equal parts (or whole), blocks taking tiles in
//                     turn; with a wave or more of tiles the last wave may leave multiprocessors idle.
//   STREAM_K = true:  stream-K (tessera/tile/stream_k.h): every block the same run of weight slices, crossing
//                     tile boundaries, so every multiprocessor streams to the end; a tile two blocks share is
//                     finished by the last of them (in-kernel fix-up only).
// Edges need no code: the copy engine fills zeros past N (weight rows), M (activation rows) and K; the store
// drops what falls outside C^T.
#pragma once
#include "ops/matmul/epilogue.tile.h"
#include "tessera/tile/staged.h"
#include "tessera/tile/stream_k.h"
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

// The k slices that split `split` of a weight tile streams: K's k_tiles slices in runs of per_split, the last
// run shorter when they do not divide.
struct KSlices {
  int64_t first, count;
};
TILE_HD KSlices k_slices(int64_t split, int64_t k_tiles, int64_t per_split) {
  const int64_t first = split * per_split;
  return {first, k_tiles - first < per_split ? k_tiles - first : per_split};
}

// The pieces of work of the swap-AB kernels (this one and matmul_glu.tile.h's), whose Params hold a tile
// schedule (`schedule`, `k_tiles`, `k_tiles_per_split`) and a stream-K schedule (`stream_k`), one of them used.
// A split of the tile schedule as a segment: `splits` parts of k_tiles_per_split slices (the last shorter).
template <class Params>
TILE_HD tile::KSegment split_segment(const Params& p, const tile::TileIndex& t) {
  const KSlices ks = k_slices(t.split, p.k_tiles, p.k_tiles_per_split);
  return {t.row, ks.first, ks.count, t.split, p.schedule.splits};
}

// Whether block b has work, and its first piece (what the prefetch before the kernel's dependencies reads).
template <bool STREAM_K, class Params>
TILE_HD bool has_work(const Params& p, int64_t b) {
  return b < (STREAM_K ? p.stream_k.blocks : p.schedule.count());
}
template <bool STREAM_K, class Params>
TILE_HD tile::KSegment first_segment(const Params& p, int64_t b) {
  if constexpr (STREAM_K) {
    return *tile::StreamKSegments{p.stream_k, b}.begin();
  } else {
    return split_segment(p, p.schedule.at(b));
  }
}

// f(segment) for each piece of work of this block, in the order the block takes them.
template <bool STREAM_K, class Block, class Params, class F>
TILE_DEVICE void for_each_segment(Block& blk, const Params& p, F&& f) {
  if constexpr (STREAM_K) {
    for (const tile::KSegment w : stream_k_segments(blk, p.stream_k)) f(w);
  } else {
    for (const tile::TileIndex t : persistent_tiles(blk, p.schedule)) f(split_segment(p, t));
  }
}

template <class T, class TO, int BW, int MT, int BK, int STAGES, int CONSUMERS, bool FIXUP = true, bool STREAM_K = false>
struct MatmulSwapAB {
  static_assert(BW == 64 * CONSUMERS, "each consumer warpgroup owns 64 weight rows");
  static_assert(FIXUP || !STREAM_K, "stream-K tiles have different numbers of parts: only the in-kernel fix-up sums them");
  using Stage = tile::Stage<tile::SharedTile<T, BW, BK>, tile::SharedTile<T, MT, BK>>;
  using Pipe = tile::PipelineShape<Stage, STAGES, CONSUMERS>;
  static constexpr int threads = Pipe::threads;
  static constexpr size_t shared_bytes = Pipe::shared_bytes;
  static constexpr int bw = BW, mt = MT, bk = BK;

  struct Params {
    tile::TmaTensor<T, BW, BK> b;  // [N, K], the weights
    tile::TmaTensor<T, MT, BK> a;  // [M, K], the activations
    tile::View2<const T> bias;     // [N, M] with column stride 0, or empty
    tile::View2<const TO> residual;  // [N, M]: the residual transposed
    tile::View2<TO> c;             // [N, M]: C transposed
    tile::View3<float> partials;   // [parts, N, M] (whole tiles) when K is cut over blocks
    tile::View2<int32_t> arrivals; // [tile rows, 1] when it is (FIXUP): zero, and left zero
    EpilogueParams epilogue;
    tile::TileSchedule schedule;   // tile rows over N, one tile column (STREAM_K = false)
    tile::StreamKSchedule stream_k;  // tile rows x k_tiles slices (STREAM_K = true)
    int64_t k_tiles, k_tiles_per_split;
  };


  // No kernel of a decode step writes the weights: while the kernel before this one finishes, the copy engine
  // pulls the first stages of this block's first weight tile into L2 (launch.h, before_dependencies).
  template <class Block>
  TILE_DEVICE static void before_dependencies(Block& blk, const Params& p) {
    if (!has_work<STREAM_K>(p, blk.bid(0))) return;
    const tile::KSegment w = first_segment<STREAM_K>(p, blk.bid(0));
    for (int64_t k = 0; k < w.k_count && k < STAGES; ++k) prefetch(blk, p.b, {w.tile * BW, (w.k_first + k) * BK});
  }

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    auto pipe = make_pipeline<Pipe>(blk);
    // Slices w.k_first .. of weight tile w.tile: part w.part of the w.parts that make up the tile.
    auto compute = [&](const tile::KSegment& w) {
      const int64_t n0 = w.tile * BW;
      pipe.producer(w.k_count, [&](Stage& s, int64_t k) {
        load_async(blk, s.a, p.b, {n0, (w.k_first + k) * BK}, tile::read_once);  // each weight byte once a call
        load_async(blk, s.b, p.a, {0, (w.k_first + k) * BK});
      });
      pipe.consumers([&] {
        auto acc = mma_accumulator<BW, MT>(pipe);
        for (const Stage& s : pipe.stages(w.k_count, acc)) mma(acc, s.a, transpose(s.b));
        if (w.parts > 1) {
          store(blk, p.partials[w.part], {n0, 0}, acc);
          if (!FIXUP) return;  // SplitKReduce finishes the tile
          if (!pipe.last_arrival(&p.arrivals(w.tile, 0), w.parts)) return;
          // The partials' loads do not depend on each other: unrolled, several are in flight at once (one at a
          // time, 11 splits kept the last block of a tile waiting for memory 11 times).
          acc = load_like(blk, acc, p.partials[0], {n0, 0});
          TILE_UNROLL(4)
          for (int64_t s = 1; s < w.parts; ++s) acc = acc + load_like(blk, acc, p.partials[s], {n0, 0});
        }
        store(blk, p.c, {n0, 0}, cast<TO>(apply_epilogue(blk, acc, p.epilogue, p.bias, p.residual, {n0, 0})));
      });
    };
    for_each_segment<STREAM_K>(blk, p, compute);
  }
};

// The second kernel of a split K without the in-kernel fix-up: C^T = epilogue(sum over s of partials[s]), one
// BR x BC tile of C^T a block, the partials summed in split order.
template <class T, class TO, int BR, int BC, int THREADS>
struct SplitKReduce {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View3<const float> partials;  // [splits, N, M]
    tile::View2<const T> bias;          // [N, M] with column stride 0, or empty
    tile::View2<const TO> residual;     // [N, M]
    tile::View2<TO> c;                  // [N, M]
    EpilogueParams epilogue;
    int64_t col_tiles;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const tile::Coord at = tile::tile_origin<BR, BC>(blk, p.col_tiles);
    auto acc = load<BR, BC>(blk, p.partials[0], at);
    for (int64_t s = 1; s < p.partials.extent[0]; ++s) acc = acc + load<BR, BC>(blk, p.partials[s], at);
    store(blk, p.c, at, cast<TO>(apply_epilogue(blk, acc, p.epilogue, p.bias, p.residual, at)));
  }
};

}  // namespace tessera::ops::kernels
