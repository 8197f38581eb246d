// Matmul as a staged tile kernel (the Hopper path): a persistent block computes BM x BN tiles of C in an
// L2-friendly order; for each, the producer streams BK-wide slices of A and B through a STAGES-deep pipeline of
// shared tiles and the consumers accumulate on the tensor cores.
//
//   for each output tile (m0, n0) and split s of K, of this block:
//     producer:  for each k of split s: stage <- A[m0 : m0+BM, k : k+BK], B[n0 : n0+BN, k : k+BK]
//     consumers: acc = 0
//                for each stage: acc += A_tile @ B_tile^T           -- wait for the stage, mma, release it
//                one split:  C[m0.., n0..] = alpha * act(acc + bias) + residual
//                            (through the copy engine where it can write C: store_async, which also
//                            reads the residual and adds it on the way out)
//                several:    partial[s][tile] = acc
//                            the last split of the tile to finish: C[m0.., n0..] = epilogue(sum of partials)
//
// The split-K fix-up needs no second launch: a counter per output tile tells the last split to arrive. It
// adds the partial sums in split order, so the result does not depend on which split came last. The partials
// are scratch slots in the accumulator's own register order (store_fragments): whole coalesced 16-byte
// accesses with no bounds tests. Stored and read back through C's view, with a bounds test on every element
// pair, they made the fix-up ~3,000 instructions a warp, run once and so never in the instruction cache: at
// 128 x 4096 x 4096 the consumers spent twice as long there as in their main loop (Nsight Compute, H200).
// T is bf16, f16 or fp8 e4m3 (a BK of one 128-byte swizzle panel: 64 or 128 elements). B is the [N, K]
// weight layout. Edges need no code: the copy engine fills zeros past M, N and K, and the
// store drops what falls outside C.
// FUSED_EPILOGUE = false compiles none of the epilogue's math (the launcher uses it for plain products and
// residuals the copy engine adds): the fused epilogue needs registers beyond the accumulators (128 a thread in
// the 128 x 256 tile), and compiled in, its spills slow the whole kernel, whichever path a tile takes: 4%
// (128 x 256) to 13% (ping-pong 128 x 128) at 4096^3 on an H200 (session 33). A branch around it did not help.
// With clusters of CLUSTER blocks, the blocks of a cluster compute vertically adjacent tiles of one tile
// column: they read the same B tile, which each fetches a share of for all (load_async_multicast), so L2
// serves B once per cluster. Clustered configurations do not split K.
// COPY_ENGINE_STORES = false (the configurations for GPUs before Hopper, whose pipeline is the tile library's
// sm_80 form: cp.async stages, mma.sync consumers) stores C from registers and keeps no staging buffers for the
// copy engine in shared memory (32 KB that a stage can use instead).
#pragma once
#include <type_traits>

#include "ops/matmul/epilogue.tile.h"
#include "tessera/tile/staged.h"
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class T, class TO, int BM, int BN, int BK, int STAGES, int CONSUMERS,
          tile::Consumers MODE = tile::Consumers::cooperative, int CLUSTER = 1, bool FUSED_EPILOGUE = true,
          bool COPY_ENGINE_STORES = true>
struct MatmulStaged {
  using Stage = tile::Stage<tile::SharedTile<T, BM, BK>, tile::SharedTile<T, BN, BK>>;
  using Pipe = tile::PipelineShape<Stage, STAGES, CONSUMERS, MODE, tile::NoResident, CLUSTER,
                                   std::conditional_t<COPY_ENGINE_STORES, TO, void>>;  // C: store_async
  static constexpr int threads = Pipe::threads;
  static constexpr size_t shared_bytes = Pipe::shared_bytes;
  static constexpr int bm = BM, bn = BN, bk = BK;
  // The in-kernel fix-up holds a second accumulator-sized tile (the partial sums it reads): only where that
  // fits in the registers, 64 accumulators per consumer thread. The 128 x 256 tile (128 per thread) spilled
  // 6.5 KB per thread with it compiled in, 3-7x slower on every shape; the launcher does not split those.
  // fp8 products are summed a few stages at a time in a tile of their own, then added to the fp32
  // accumulator: the tensor cores' fp8 accumulation keeps about 14 bits of mantissa (DeepSeek-V3's report,
  // section 3.3.2), which over K = 4096 drifts past a bf16 output's rounding. It takes a second accumulator's
  // registers: the fp8 configurations are 128 x 128 and 64 x 128.
  // Two stages (256 of K) a sum: the wait that ends a sum holds the consumer's next products back, paid every
  // other stage.
  static constexpr bool promote_stages = sizeof(T) == 1;
  static constexpr int kStagesPerSum = 2;
  static constexpr bool may_split =
      BM * BN / (CONSUMERS * 128) <= 64 && MODE == tile::Consumers::cooperative && CLUSTER == 1;

  struct Params {
    tile::TmaTensor<T, BM, BK> a;  // [M, K]
    tile::TmaTensor<T, BN / CLUSTER, BK> b;  // [N, K], in boxes of each block's share of a B tile
    tile::View2<const T> bias;     // [M, N] with row stride 0, or empty
    tile::View2<const TO> residual;
    tile::View2<TO> c;
    tile::TmaTensor<TO, 16, 128 / sizeof(TO)> c_boxes;  // C for the copy engine, when it can write C
    bool c_by_copy_engine;                              // (tma_store_compatible)
    tile::TmaTensor<TO, 16, 128 / sizeof(TO)> residual_boxes;  // the residual, where the copy engine stores C
    bool residual_by_copy_engine;                              // and can read it: added by the store
    tile::View1<float> partials;   // splits x tiles slots of BM x BN floats when the schedule splits K
    tile::View2<int32_t> arrivals; // [tile rows, tile cols] when it splits K: zero, and left zero
    EpilogueParams epilogue;
    tile::TileSchedule schedule;
    int64_t k_tiles, k_tiles_per_split;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    auto pipe = make_pipeline<Pipe>(blk);
    for (const tile::TileIndex t : persistent_tiles(blk, p.schedule)) {
      const int64_t m0 = t.row * BM, n0 = t.col * BN;
      const int64_t k_first = t.split * p.k_tiles_per_split;
      const int64_t k_count = p.k_tiles - k_first < p.k_tiles_per_split ? p.k_tiles - k_first : p.k_tiles_per_split;
      pipe.producer(k_count, [&](Stage& s, int64_t k) {
        load_async(blk, s.a, p.a, {m0, (k_first + k) * BK});
        load_async_multicast(blk, s.b, p.b, {n0, (k_first + k) * BK});
      });
      pipe.consumers([&] {
        auto acc = mma_accumulator<BM, BN>(pipe);
        if constexpr (promote_stages) {
          auto stage_sum = mma_accumulator<BM, BN>(pipe);
          int64_t k = 0;
          for (const Stage& s : pipe.stages(k_count, stage_sum)) {
            if (k % kStagesPerSum == 0) mma(stage_sum, s.a, transpose(s.b), tile::overwrite);
            else mma(stage_sum, s.a, transpose(s.b));
            if (++k % kStagesPerSum == 0 || k == k_count) {
              mma_wait(stage_sum);
              pipe.release(s);
              acc = acc + stage_sum;
            }
          }
        } else {
          for (const Stage& s : pipe.stages(k_count, acc)) mma(acc, s.a, transpose(s.b));
        }
        if constexpr (may_split) {
          if (p.schedule.splits > 1) {
            const int64_t tile = t.row * p.schedule.tile_cols + t.col, tiles = p.schedule.tiles();
            store_fragments(blk, p.partials, t.split * tiles + tile, acc);
            if (!pipe.last_arrival(&p.arrivals(t.row, t.col), p.schedule.splits)) return;
            acc = load_fragments(blk, acc, p.partials, tile);
            for (int64_t s = 1; s < p.schedule.splits; ++s) acc = acc + load_fragments(blk, acc, p.partials, s * tiles + tile);
          }
        }
        if constexpr (!COPY_ENGINE_STORES) {
          if constexpr (FUSED_EPILOGUE) store(blk, p.c, {m0, n0}, cast<TO>(apply_epilogue(blk, acc, p.epilogue, p.bias, p.residual, {m0, n0})));
          else store(blk, p.c, {m0, n0}, cast<TO>(acc));
        } else if constexpr (FUSED_EPILOGUE) {
          store_epilogue<TO>(blk, pipe, p, acc, {m0, n0});
        } else {
          store_plain<TO>(blk, pipe, p, acc, {m0, n0});
        }
      });
    }
  }
};

}  // namespace tessera::ops::kernels
