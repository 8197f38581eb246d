// Prefill attention on the staged pipeline (the Hopper path, FlashAttention-3 style): a block owns BM query
// rows of one head, 64 per consumer warpgroup, resident in shared memory; the producer streams tiles of BN
// keys and their values through the pipeline, and both products run on the tensor cores:
//
//   q = Q[q0 : q0 + BM]                                    -- shared memory, once
//   for each key tile j that some row of the block can see (one stage: K_j, V_j):
//     s = logits(q @ K_j^T)                                -- both from shared memory
//     s = where(key visible, s, -inf)                      -- only on tiles that cross an edge of the mask
//     m_new = max(m, rowmax(s));  p = exp2(s - m_new);  l = l exp2(m - m_new) + rowsum(p)
//     o = o exp2(m - m_new) + p @ V_j                      -- p cast to the input type, still in registers
//   (m moves only where a tile's max passes it by a margin: online_softmax.tile.h)
//   O[q0 ..] = o / l;  lse = (m + log2 l) ln 2         -- O through the query tile's shared memory and the
//                                                        copy engine where it can write O
//
// Scheduled as FlashAttention-3 does: p_j @ V_j is issued together with the next tile's q @ K_{j+1}^T, so
// the softmax of tile j + 1 runs while the tensor cores finish tile j's values, and the two consumer
// warpgroups take turns issuing their products, so that one's softmax overlaps the other's mma.
//
// Overlapped work items (the `_overlap` configurations, persistent grids only): the consumers' turns run on
// from one work item to the next, the query tile goes back to the producer right after an item's last scores,
// and O leaves through the pipeline's staging buffers instead of the query tile. So the next item's queries
// load under this item's last softmax, products and store, and the first consumer starts the next item while
// the second finishes this one; otherwise both wait for the second's store and then for the next queries.
// (The early release alone, O leaving through the last value tile, gained nothing in session 37; with O stored
// from registers instead of staged, the three together were 2-4% slower: session 62. Staged, they gain 1.5-3%
// at 1k-2k keys, where an item is a few key tiles.)
//
// Keys and values travel in stages of their own (K_0, V_0, K_1, V_1, ...), so that K_j goes back to the
// producer as soon as its scores are done, while V_{j-1} is still being multiplied: a step holds two stages, and
// the producer fills the others a whole step ahead. In stages of a (K_j, V_j) pair, the pair of step j - 1
// stayed held for its values, and at head dim 256, where shared memory holds only two pairs beside the query
// tile, the producer could not load anything while a step ran.
//
// With Dqk > Dv (MLA prefill: 128 + 64 rotary columns of q and k, values 128 wide) the keys' extra columns are a
// tile of their own in each stage, scored by a second product into the same logits, and left out of the
// stages that carry values: a stage is as wide as the keys, not as wide as a key and a value tile together.
//
// The masks, the logits and the online softmax are those of fmha.tile.h (online_softmax.tile.h); query head
// h reads KV head h / group. The copy engine reads K and V as planes of a stack ([B * Hkv, Sk, D] for fmha,
// [Hkv, Tk, D] for the packed form); keys past a sequence's end are masked, and rows past the stack's end
// arrive as zeros.
#pragma once
#include "ops/attention/fmha.tile.h"
#include "tessera/tile/staged.h"

namespace tessera::ops::kernels {

// The consumer warpgroups of a staged attention block, and its query rows: 64 a consumer.
inline constexpr int kStagedConsumers = 2, kStagedQueryRows = 64 * kStagedConsumers;

// The shape of the staged attention kernels: BM = 64 query rows per consumer warpgroup, two consumers; STAGES
// stages of one BN-key tile each (keys and values alternate), at least 3 so that the producer runs ahead.
// Where keys are wider than values (DQK = DV + REST: MLA's 64 rotary columns beside 128), a stage and the
// query tile are two tiles, the first DV columns and the REST after them, and a stage that carries values
// leaves its second tile out (leave_unloaded).
template <class T, int DQK, int DV, int BN, int STAGES, bool OVERLAP_ITEMS = false>
struct StagedAttentionShape {
  static_assert(STAGES >= 3, "a step holds two stages (V_{j-1}, K_j): the producer needs a third");
  static_assert(DQK >= DV, "keys at least as wide as values");
  using value_type = T;
  static constexpr int consumers = kStagedConsumers, bm = kStagedQueryRows, bn = BN, d = DQK, dv = DV, rest = DQK - DV;
  static constexpr bool overlap_items = OVERLAP_ITEMS;
  template <int R>
  using Columns = std::conditional_t<rest == 0, tile::Stage<tile::SharedTile<T, R, DV>>,
                                     tile::Stage<tile::SharedTile<T, R, DV>, tile::SharedTile<T, R, (rest > 0 ? rest : DV)>>>;
  using Stage = Columns<BN>;     // K_j or V_j
  using QueryTile = Columns<bm>;  // resident: the block's rows
  // Overlapped items store O through staging buffers of their own (the query tile goes back before O is ready).
  using Pipe = tile::PipelineShape<Stage, STAGES, consumers, tile::Consumers::cooperative, QueryTile, 1,
                                   std::conditional_t<OVERLAP_ITEMS, T, void>>;
  using Keys = tile::TmaTensor<T, BN, DV, 3>;                         // K's first DV columns, or V, as [planes, rows, *]
  using KeysRest = tile::TmaTensor<T, BN, (rest > 0 ? rest : DV), 3>;  // K's columns past DV (unused when rest = 0)
  using Queries = tile::TmaTensor<T, bm, DV, 3>;                      // Q as [planes, rows, DQK], the same split
  using QueriesRest = tile::TmaTensor<T, bm, (rest > 0 ? rest : DV), 3>;
  using Outputs = tile::TmaTensor<T, 16, int(128 / sizeof(T)), 3>;  // O as [planes, rows, DV], in store boxes
};

// The tensors a staged attention kernel reads: Q, K, V as stacks of [rows, D] planes, with K's and Q's
// columns past DV in maps of their own (Shape::rest > 0).
template <class Shape>
struct StagedAttentionInputs {
  typename Shape::Queries q;
  typename Shape::QueriesRest q_rest;
  typename Shape::Keys k, v;
  typename Shape::KeysRest k_rest;
};

// One fill of a stage with keys, or of the query tile: the rows at `row` of plane `plane`, split as the tile is.
template <class Shape, class Block, class Tiles, class Map, class RestMap>
TILE_DEVICE void load_split(Block& blk, Tiles& t, const Map& first, const RestMap& rest, int64_t plane, int64_t row) {
  load_async(blk, t.a, first, plane, {row, 0});
  if constexpr (Shape::rest > 0) load_async(blk, t.b, rest, plane, {row, Shape::dv});
}
// A fill with values: the stage's first tile only.
template <class Shape, class Block, class Stage, class Map>
TILE_DEVICE void load_values(Block& blk, Stage& s, const Map& v, int64_t plane, int64_t row) {
  load_async(blk, s.a, v, plane, {row, 0});
  if constexpr (Shape::rest > 0) leave_unloaded(blk, s.b);
}
// dots = q @ K_j^T, over both column parts where the tiles are split.
template <class Shape, class Acc, class Queries, class Stage>
TILE_DEVICE void score_keys(Acc& dots, const Queries& q, const Stage& keys) {
  mma(dots, q.a, transpose(keys.a), tile::overwrite);
  if constexpr (Shape::rest > 0) mma(dots, q.b, transpose(keys.b));
}

// Where a block's output rows go: plane `plane` of `boxes` through the copy engine (staged in the query
// tile's shared memory, which the block no longer reads), or, without boxes, o_rows from registers.
template <class Shape>
struct OutputPlane {
  const typename Shape::Outputs* boxes = nullptr;
  int64_t plane = 0;
};

// The key tiles that some query row of [q0, q0 + BM) may see: `count` tiles of BN keys from key `begin`.
struct VisibleKeyTiles {
  int64_t begin, count;
};
template <int BM, int BN>
TILE_HD VisibleKeyTiles visible_key_tiles(int64_t q0, int64_t Sq, int64_t Sk, const MaskParams& mask) {
  const int64_t offset = Sk - Sq;
  int64_t k_begin = 0, k_end = Sk;
  if (mask.causal) k_end = q0 + BM + offset < Sk ? q0 + BM + offset : Sk;
  if (mask.window_left >= 0 && q0 + offset - mask.window_left > 0) k_begin = (q0 + offset - mask.window_left) / BN * BN;
  return {k_begin, k_end > k_begin ? (k_end - k_begin + BN - 1) / BN : 0};
}

// Attends query rows [q0, q0 + BM) of a sequence's Sq queries (rows q_row0 + q0 .. of plane q_plane of in.q)
// to the Sk keys and values that start at row key_row0 of plane `plane` of in.k and in.v, bottom-right
// aligned. Writes those rows of o_rows [Sq, DV] and, when has_lse, of lse_rows [Sq, 1]. With block_turns
// (overlapped items), the consumers take their turns at the tensor cores from the block's ring, not their own.
template <class Shape, class Block, class Pipe, class T, class Turns = int>
TILE_DEVICE void attend_query_tile_staged(Block& blk, Pipe& pipe, const StagedAttentionInputs<Shape>& in, int64_t q_plane,
                                          int64_t q_row0, int64_t plane, int64_t key_row0, int64_t Sk, const tile::View2<T>& o_rows,
                                          const tile::View2<float>& lse_rows, bool has_lse, int64_t q0,
                                          const MaskParams& mask, float out_scale = 1.f,
                                          OutputPlane<Shape> out = {}, Turns* block_turns = nullptr) {
  constexpr int BM = Shape::bm, BN = Shape::bn, DV = Shape::dv;
  using Stage = typename Shape::Stage;
  const int64_t Sq = o_rows.extent[0], offset = Sk - Sq;

  // The keys that any row of this block may see, and the key tiles that cover them.
  const auto [k_begin, tiles] = visible_key_tiles<BM, BN>(q0, Sq, Sk, mask);
  // Overlapped work items: the query tile goes back right after the last scores (the output then leaves
  // through the pipeline's staging buffers), so that the next item's queries load under this one's last steps.
  const bool early_release = Shape::overlap_items && tiles > 0;

  // The queries follow the first key tile: in a persistent block that tile loads while the previous work
  // item's consumers still hold their query tile (for its last products and its output).
  auto load_queries = [&] {
    pipe.load_resident([&](typename Shape::QueryTile& r) { load_split<Shape>(blk, r, in.q, in.q_rest, q_plane, q_row0 + q0); });
  };
  if (tiles == 0) load_queries();
  pipe.producer(2 * tiles, [&](Stage& s, int64_t i) {  // K_0, V_0, K_1, V_1, ...
    const int64_t row = key_row0 + k_begin + (i / 2) * BN;
    if (i % 2 == 0) load_split<Shape>(blk, s, in.k, in.k_rest, plane, row);
    else load_values<Shape>(blk, s, in.v, plane, row);
    if (i == 0) load_queries();
  });
  pipe.consumers([&] {
    auto o = mma_accumulator<BM, DV>(pipe);
    const auto q_tile = pipe.resident();
    auto m = full_like(row_max(o), -INFINITY);
    auto l = full_like(m, 0.f);
    auto dots = mma_accumulator<BM, BN>(pipe);
    auto p = cast<T>(dots);         // the probabilities of the last key tile scored
    auto rescale = full_like(m, 1.f);  // what the rows of o that moved are multiplied by before they are added in
    auto moved = m > 0.f;

    // The online softmax on the scores of the key tile at k0: masked where the tile crosses an edge of the
    // mask (past the last key, across the causal diagonal or the window's left edge).
    auto softmax_step = [&](int64_t k0) {
      auto scores = mask.logits.scores(dots);
      const bool crosses_end = k0 + BN > Sk;
      const bool crosses_diagonal = mask.causal && k0 + BN - 1 > q0 + offset;
      const bool crosses_window = mask.window_left >= 0 && k0 < q0 + BM - 1 + offset - mask.window_left;
      if (crosses_end || crosses_diagonal || crosses_window) {
        // Each row sees the tile's columns [first, last] (key - k0): one compare a score against the row's bounds,
        // where key and position tiles cost ~10 instructions a score (Nsight Compute, H100).
        const auto position = arange_like(m, 0) + int(q0 + offset - k0);  // a row's position, less k0
        auto last = full_like(position, int(Sk - 1 - k0));
        if (mask.causal) last = minimum(last, position);
        const auto column = arange_like(dots, 1);
        auto visible = column <= last;
        if (mask.window_left >= 0) visible = visible & (column >= position - int(mask.window_left));
        scores.x = where(visible, scores.x, -INFINITY);
      }
      const auto w = online_softmax_weights(scores, m, l);
      rescale = w.rescale;
      moved = w.moved;
      p = cast<T>(w.p);
    };

    // Tile j's keys are multiplied while tile j - 1's values are (two stages held), and the two consumers
    // take turns at the tensor cores: each one's softmax runs under the other's products.
    auto own_turns = pipe.mma_turns(block_turns ? 0 : tiles);
    auto* turns_in_use = &own_turns;
    if constexpr (std::is_same_v<Turns, decltype(own_turns)>)
      if (block_turns) turns_in_use = block_turns;
    auto& turns = *turns_in_use;
    if (tiles > 0) {
      auto keys = pipe.acquire();
      {
        [[maybe_unused]] const auto turn = turns.take();
        score_keys<Shape>(dots, q_tile, keys);
      }
      mma_wait(dots);
      pipe.release(keys);
      if (early_release && tiles == 1) pipe.release_resident();
      softmax_step(k_begin);
      for (int64_t j = 1; j < tiles; ++j) {
        const auto values = pipe.acquire();  // V_{j-1}, loaded before K_j
        keys = pipe.acquire();
        {
          [[maybe_unused]] const auto turn = turns.take();
          score_keys<Shape>(dots, q_tile, keys);  // over the spent scores of the tile before
          scale_rows_where(o, moved, rescale);
          mma(o, p, values.a);
        }
        mma_wait<1>(dots);  // all but p @ V_{j-1}
        pipe.release(keys);
        if (early_release && j == tiles - 1) pipe.release_resident();
        softmax_step(k_begin + j * BN);
        mma_wait(o);
        pipe.release(values);
      }
      const auto values = pipe.acquire();
      scale_rows_where(o, moved, rescale);
      mma(o, p, values.a);
      mma_wait(o);
      pipe.release(values);
    }
    const auto o_final = cast<T>(o * (inverse_sum(l) * out_scale));
    if constexpr (Shape::overlap_items) {
      if (out.boxes) pipe.store_async(blk, *out.boxes, out.plane, {q0, 0}, o_final);
      else store(blk, o_rows, {q0, 0}, o_final);
    } else {
      if (out.boxes) pipe.store_async(blk, *out.boxes, out.plane, {q0, 0}, o_final, q_tile.a);
      else store(blk, o_rows, {q0, 0}, o_final);
    }
    if (!early_release) pipe.release_resident();
    if (has_lse) store(blk, lse_rows, {q0, 0}, log_sum_exp(m, l));
  });
}

// Work items: (query tile, head) pairs, a head's query tiles one after another (they share its keys and values
// in L2), taken by a grid of blocks that each run several in turn (persistent: the next item's first key tile
// loads under the current one's last steps, and no block starts cold) or one each. q [B, Hq, Sq, DQK],
// o [B, Hq, Sq, DV], lse [B, Hq, Sq, 1]; K and V as [B * Hkv, Sk, DQK / DV] planes.
//
// Causal items in pairs (persistent grids): a head's heaviest query tile with its lightest, its second heaviest
// with its second lightest, ..., so that every pair sees about as many keys (R + 1 key tiles for a head of R
// query tiles; where R is odd, pairs cross from one head to the next and differ by about a tile), and a
// persistent block takes every P-th pair. Taking every P-th single item in weight order, a block met only the
// rows that P steps through modulo R: at 1k keys (R = 8) on 132 multiprocessors rows 0 and 4, or 3 and 7, so
// some blocks did 6 key tiles an item and others 3, and the grid ran as long as the heaviest. In pairs, causal
// 16 x 16 x 1k x 128 ran in 175 us against 199 for the grid of a block an item (main's choice until then) and
// 210 for single items, and 1 x 32 x 2k x 128 in 71 against 79 (H200, session 63).
template <class T, int DQK, int DV, int BN, int STAGES, bool OVERLAP_ITEMS = false>
struct FmhaStaged : StagedAttentionShape<T, DQK, DV, BN, STAGES, OVERLAP_ITEMS> {
  using Shape = StagedAttentionShape<T, DQK, DV, BN, STAGES, OVERLAP_ITEMS>;
  static constexpr int threads = Shape::Pipe::threads;
  static constexpr size_t shared_bytes = Shape::Pipe::shared_bytes;
  struct Params {
    StagedAttentionInputs<Shape> in;  // Q [B * Hq, Sq, DQK], K and V [B * Hkv, Sk, DQK / DV] planes
    tile::View4<T> o;
    tile::View4<float> lse;
    bool has_lse;
    int64_t kv_heads, group;
    MaskParams mask;
    float out_scale = 1.f;  // o's factor (fmha_fp8: v's scale)
    typename Shape::Outputs o_boxes;  // o as [B * Hq, Sq, DV] planes, when o_by_copy_engine
    bool o_by_copy_engine = false;
    tile::TileSchedule items;  // rows: query tiles; columns: heads (b Hq + h); a group holds all of a head's tiles
    bool paired_items = false; // causal on a persistent grid: query tiles in pairs of about equal work
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    auto pipe = make_pipeline<typename Shape::Pipe>(blk);
    const int64_t heads = p.o.extent[1], Sq = p.o.extent[2], Sk = p.in.k.view.extent[1];
    const int64_t q_tiles = (Sq + Shape::bm - 1) / Shape::bm;
    // f(head b Hq + h, first query row) for each work item of this block, in order. Paired, a head's query tiles
    // come as the heaviest, the lightest, the second heaviest, the second lightest, ... and a block takes them two
    // at a time.
    // An item's query tile and head come from its number with one 32-bit division (the launcher keeps the
    // items under 2^31): with TileSchedule::at's 64-bit divisions, software routines that every thread ran at
    // every item and, with overlapped items, once more per item in the block's count of key tiles, 16 x 16 x 1k
    // x 128 took 249 us against 232, causal 178 against 157 (H200, session 63); with at's five 32-bit divisions
    // 237.5-237.9 against 232.6-232.8, causal 166-168 against 157.5 (session 64).
    const uint32_t rows = uint32_t(q_tiles);
    auto for_each_item = [&](auto&& f) {
      const auto runs = persistent_tile_runs(blk, p.items, p.paired_items ? 2 : 1);
      for (auto it = runs.begin(); it != runs.end(); ++it) {
        const uint32_t index = uint32_t(it.index()), head = index / rows, row = index - head * rows;
        const uint32_t rank = !p.paired_items ? row : row % 2 == 0 ? row / 2 : rows - 1 - row / 2;
        f(int64_t(head), query_tile_row(rank, Sq, Shape::bm, p.mask.causal));
      }
    };
    // Overlapped items: one ring of turns for all the block's items, each consumer taking one turn per key tile.
    int64_t block_tile_count = 0;
    if constexpr (OVERLAP_ITEMS)
      for_each_item([&](int64_t, int64_t q0) { block_tile_count += visible_key_tiles<Shape::bm, Shape::bn>(q0, Sq, Sk, p.mask).count; });
    auto block_turns = pipe.mma_turns(block_tile_count);
    for_each_item([&](int64_t bh, int64_t q0) {
      const uint32_t batch = uint32_t(bh) / uint32_t(heads), head = uint32_t(bh) - batch * uint32_t(heads);
      const int64_t b = batch, h = head;
      OutputPlane<Shape> out;
      if (p.o_by_copy_engine) out = {&p.o_boxes, bh};
      attend_query_tile_staged<Shape>(blk, pipe, p.in, bh, 0, b * p.kv_heads + int64_t(head / uint32_t(p.group)), 0, Sk, p.o[b][h],
                                      p.lse[b][h], p.has_lse, q0, p.mask, p.out_scale, out,
                                      OVERLAP_ITEMS ? &block_turns : nullptr);
    });
  }
};

// Grid (ceil(Tq / BM), Hq, B + 1). q [Hq, Tq, DQK], o [Hq, Tq, DV], lse [Hq, Tq, 1] (head-major views of the
// packed tensors); K and V as [Hkv, Tk, DQK / DV] planes; cu_q, cu_k [B + 1]. As FmhaVarlen: the extra sequence
// B owns the rows past cu_q[B], written as o = 0, lse = -inf.
template <class T, int DQK, int DV, int BN, int STAGES>
struct FmhaStagedVarlen : StagedAttentionShape<T, DQK, DV, BN, STAGES> {
  using Shape = StagedAttentionShape<T, DQK, DV, BN, STAGES>;
  static constexpr int threads = Shape::Pipe::threads;
  static constexpr size_t shared_bytes = Shape::Pipe::shared_bytes;
  struct Params {
    StagedAttentionInputs<Shape> in;  // Q [Hq, Tq, DQK], K and V [Hkv, Tk, DQK / DV] planes
    tile::View3<T> o;
    tile::View3<float> lse;
    tile::View1<const int32_t> cu_q, cu_k;
    bool has_lse;
    int64_t group;
    MaskParams mask;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t h = blk.bid(1);
    const auto [q_begin, q_end, k_begin, k_end] = packed_sequence(p.cu_q, p.cu_k, blk.bid(2), p.o.extent[1], p.in.k.view.extent[1]);
    // The whole block leaves together (before the pipeline starts): no role waits for another.
    if (blk.bid(0) * Shape::bm >= q_end - q_begin) return;
    const int64_t q0 = query_tile_row(blk.bid(0), q_end - q_begin, Shape::bm, p.mask.causal);
    const int64_t d = p.o.extent[2];
    auto pipe = make_pipeline<typename Shape::Pipe>(blk);
    attend_query_tile_staged<Shape>(blk, pipe, p.in, h, q_begin, h / p.group, k_begin, k_end - k_begin,
                                    p.o[h].window(q_begin, 0, q_end - q_begin, d),
                                    p.lse[h].window(q_begin, 0, q_end - q_begin, 1), p.has_lse, q0, p.mask);
  }
};

}  // namespace tessera::ops::kernels
