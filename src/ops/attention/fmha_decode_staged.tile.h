// Decode attention over a paged KV cache on the staged pipeline (the Hopper path). A block owns one split of
// the keys of one KV head of one sequence, and 64 (token, head) query rows of the head's group (the rows of
// fmha_decode.tile.h: row r is token r / G, query head r % G of the group), so every byte of K and V is read
// once for the whole group. The producer gathers each tile of BN keys box by box, kCacheBox tokens at a time,
// through the block table; the consumer warpgroup runs both products on the tensor cores:
//
//   q = the group's query rows                                  -- registers, once
//   for each key tile j of the split (one stage: K_j, V_j):
//     s = logits(q @ K_j^T)
//     s = where(key < end and key <= position(row) and inside the window, s, -inf)    -- edge tiles only
//     rows of V_j past the end = 0                              -- slots that hold no token may hold NaN
//     m_new = max(m, rowmax(s));  p = exp2(s - m_new);  l = l exp2(m - m_new) + rowsum(p)
//     o = o exp2(m - m_new) + p @ V_j;  release the stage
//   one split: O = o / l;  several: o, m and l to the fp32 partials, which DecodeMerge combines.
//
// Cache rows: token t of sequence b is row block_table[b, t / page_size] * page_size + t % page_size of its KV
// head's plane, or b * page_size + t for a contiguous cache (page_size = the cache's length). A box never
// crosses a page: page sizes are multiples of kCacheBox and tiles start at multiples of it.
#pragma once
#include "ops/attention/fmha_decode.tile.h"
#include "tessera/tile/row_boxes.h"
#include "tessera/tile/staged.h"

namespace tessera::ops::kernels {

inline constexpr int kCacheBox = 16;  // tokens per copy-engine box

// The helpers below read DecodeSplitParams (fmha_decode.tile.h) and the cache tensor k of the kernels' parameters.

// The cache rows of the boxes of the key tile starting at token `first` of sequence b. The producer's one
// thread issues every copy, so this stays short: one 32-bit division per tile (a 64-bit one is a long
// subroutine on the GPU), the boxes stepping through pages from there. A paged cache's entries are all asked
// for before any is used (one round trip to L2 a tile, not one a box; no load under a branch: the index is
// clamped into the table, and an entry past it is read but not used). Boxes at or past `end` read the box
// before them again: their rows are masked (K) and zeroed (V). A token past the block table or a table entry
// outside the cache (the caller's error, unchecked on the GPU) reads row 0 rather than out of bounds.
template <int BOXES, class Params>
TILE_DEVICE void box_rows(const Params& p, int64_t b, int32_t first, int32_t end, int32_t pages, int32_t (&row)[BOXES]) {
  const int32_t size = int32_t(p.page_size);
  if (!p.paged) {
    for (int box = 0; box < BOXES; ++box)
      row[box] = box > 0 && first + box * kCacheBox >= end ? row[box - 1] : int32_t(b) * size + first + box * kCacheBox;
    return;
  }
  const int32_t table = int32_t(p.block_table.extent[1]);
  int32_t index[BOXES], offset[BOXES], page[BOXES];
  int32_t i = first / size, o = first - i * size;
  TILE_UNROLL(32)
  for (int box = 0; box < BOXES; ++box) {
    index[box] = i;
    offset[box] = o;
    o += kCacheBox;
    if (o == size) {
      o = 0;
      ++i;
    }
  }
  TILE_UNROLL(32)
  for (int box = 0; box < BOXES; ++box) page[box] = table > 0 ? p.block_table(b, index[box] < table ? index[box] : table - 1) : -1;
  TILE_UNROLL(32)
  for (int box = 0; box < BOXES; ++box) {
    const bool known = index[box] < table && page[box] >= 0 && page[box] < pages;
    row[box] = known ? page[box] * size + offset[box] : 0;
    if (box > 0 && first + box * kCacheBox >= end) row[box] = row[box - 1];
  }
}

// The first key tile a block streams and how many: whole tiles before the window of the first query token
// are never seen.
template <int BN, class Params>
TILE_DEVICE KeyRange visible_keys(const Params& p, KeyRange split, int64_t len, int64_t Sq) {
  int64_t k_begin = split.begin;
  const int64_t first_visible = p.window_left >= 0 ? len - Sq - p.window_left : 0;
  if (first_visible > k_begin) k_begin += (first_visible - k_begin) / BN * BN;
  return {k_begin, split.end};
}

// Whether the key tile at k0 needs a mask: it runs past the split's end, across the first query token's
// position or the window's left edge.
template <int BN, class Params>
TILE_DEVICE bool crosses_mask(const Params& p, int64_t k0, int64_t t_end, int64_t len, int64_t Sq) {
  return k0 + BN > t_end || k0 + BN - 1 > len - Sq || (p.window_left >= 0 && k0 < len - 1 - p.window_left);
}

// The scores (or dot products) of the keys a query row sees (before the split's end, at or before its position,
// inside the window), -inf elsewhere.
template <class Params, class S, class I>
TILE_DEVICE S masked(const Params& p, const S& scores, const I& key, const I& position, int64_t t_end) {
  auto visible = (key < int(t_end)) & (key <= position);
  if (p.window_left >= 0) visible = visible & (key >= position - int(p.window_left));
  return where(visible, scores, -INFINITY);
}

// The block's result for query rows [r0, ...) of KV head hk's group: o / l with one split, else the split's
// o, m and l to the partials.
template <class T, class Block, class Params, class O, class V>
TILE_DEVICE void store_result(Block& blk, const Params& p, int64_t split, int64_t b, int64_t hk, int64_t r0, const O& o,
                              const V& m, const V& l) {
  const int64_t G = p.group;
  if (p.splits == 1) {
    store(blk, head_range(p.o[b], hk * G, G), {r0, 0}, cast<T>(o * inverse_sum(l)));
    return;
  }
  const int64_t part = split * p.seq_lens.extent[0] + b;
  store(blk, head_range(p.o_part[part], hk * G, G), {r0, 0}, o);
  store(blk, head_range(p.m_part[part], hk * G, G), {r0, 0}, m);
  store(blk, head_range(p.l_part[part], hk * G, G), {r0, 0}, l);
}

// The producer's part: the key tiles [k_begin, t_end) of sequence b, each through the block table box by box
// into one stage, from plane `plane` of two tensors read at the same cache rows (K and V; or MLA's c_kv and rope
// columns of one latent cache). Tokens from `newest` on are the step's own (the kernel before may have just
// written them): a producer that started early (producer_starts_early) waits for that kernel before the first
// tile that holds one.
// HOW: the copy engine's copies of a tile go panel by panel across its boxes (by_panels: load_row_boxes_async,
// row_boxes.h) or box by box, each box's row pieces back to back (by_boxes); or the producer's threads copy
// (by_threads: load_row_boxes_by_threads, for a pipeline of CopiedByThreads shape). For decode attention's
// 256-byte K and V rows panel by panel is 2-3% faster than box by box (1.5-3.2% on 16-token pages, 3-4%
// contiguous; sessions 66-67), and the threads 1-4% faster than that on 16-token pages (session 68); for MLA's
// 1152-byte latent rows box by box is 1.1% faster where it is memory-bound (16 query heads) and the same with
// 128 (session 67, H200).
enum class KeyCopies { by_panels, by_boxes, by_threads };
template <int BN, KeyCopies HOW, class Block, class Pipe, class Params, class First, class Second>
TILE_DEVICE void produce_key_tiles(Block& blk, Pipe& pipe, const Params& p, const First& first, const Second& second,
                                   int64_t plane, int64_t b, int64_t k_begin, int64_t t_end, int64_t tiles, int64_t newest) {
  constexpr int boxes = BN / kCacheBox;
  int32_t rows[boxes] = {};  // filled for the first tile before it is read
  const int32_t pages = p.paged ? int32_t(first.view.extent[1] / p.page_size) : 0;
  // Captured by value (the block, the parameters and the tensors outlive the kernel body): on the host the
  // loads run later, inside the consumers' loop (host/pipeline.h), after this function has returned.
  pipe.producer(tiles, [&blk, &pipe, &p, &first, &second, plane, b, k_begin, t_end, tiles, newest, pages, rows](auto& s, int64_t j) mutable {
    if (j == 0) box_rows<boxes>(p, b, int32_t(k_begin), int32_t(t_end), pages, rows);
    if (k_begin + (j + 1) * BN > newest) pipe.wait_for_predecessor();
    if constexpr (HOW == KeyCopies::by_threads) {
      load_row_boxes_by_threads(blk, s.a, first, s.b, second, plane, rows);
    } else if constexpr (HOW == KeyCopies::by_panels) {
      load_row_boxes_async(blk, s.a, first, s.b, second, plane, rows, tile::read_once);
    } else {
      for (int box = 0; box < boxes; ++box) {
        load_rows_async(blk, s.a, box * kCacheBox, first, plane, {rows[box], 0}, tile::read_once);
        load_rows_async(blk, s.b, box * kCacheBox, second, plane, {rows[box], 0}, tile::read_once);
      }
    }
    // The next tile's block table entries, read now: their latency passes while the producer waits for a
    // free stage.
    if (j + 1 < tiles) box_rows<boxes>(p, b, int32_t(k_begin + (j + 1) * BN), int32_t(t_end), pages, rows);
  });
}

// The scores (online_softmax.tile.h) of the key tile at k0 for query rows [r0, ...) of a group of G heads (row r
// at position len - Sq + r / G), -inf where a row may not see a key: only where the tile crosses an edge of the
// mask.
template <int BN, class Params, class S>
TILE_DEVICE auto decode_scores(const Params& p, const S& dots, int64_t k0, int64_t r0, int64_t t_end, int64_t len, int64_t Sq) {
  auto scores = p.logits.scores(dots);
  if (crosses_mask<BN>(p, k0, t_end, len, Sq)) {
    const auto position = (arange_like(dots, 0) + int(r0)) / int(p.group) + int(len - Sq);
    scores.x = masked(p, scores.x, arange_like(dots, 1) + int(k0), position, t_end);
  }
  return scores;
}

// BLOCKS: blocks per multiprocessor (their registers and shared memory must fit together).
// THREADS: the producer's threads copy the key tiles (CopiedByThreads), not the copy engine.
template <class T, int D, int BN, int STAGES, int BLOCKS, bool THREADS = false>
struct StagedDecodeShape {
  using value_type = T;
  static constexpr int bm = 64, bn = BN, d = D, blocks_per_sm = BLOCKS;
  static constexpr bool threads_copy = THREADS;
  static constexpr KeyCopies key_copies = THREADS ? KeyCopies::by_threads : KeyCopies::by_panels;
  using Stage = tile::Stage<tile::SharedTile<T, BN, D>, tile::SharedTile<T, BN, D>>;  // K_j, V_j
  template <class Shape>
  using Copied = std::conditional_t<THREADS, tile::CopiedByThreads<Shape>, Shape>;
  using Pipe = Copied<tile::PipelineShape<Stage, STAGES, 1>>;
  using Cache = tile::TmaTensor<T, kCacheBox, D, 3>;  // K or V as [Hkv planes, cache rows, D]
};

template <class T, int D, int BN, int STAGES, int BLOCKS, bool THREADS = false>
struct FmhaDecodeStaged : StagedDecodeShape<T, D, BN, STAGES, BLOCKS, THREADS> {
  using Shape = StagedDecodeShape<T, D, BN, STAGES, BLOCKS, THREADS>;
  static constexpr int threads = Shape::Pipe::threads, min_blocks_per_sm = BLOCKS;
  static constexpr size_t shared_bytes = Shape::Pipe::shared_bytes;
  struct Params : DecodeSplitParams<T> {
    tile::View4<const T> q;  // [B, Sq, Hq, D]
    typename Shape::Cache k, v;
  };
  // The producer reads seq_lens and the block table, and copies the older tokens' tiles, while the kernel
  // before (the step's q/k/v projection, which appends the newest tokens) finishes.
  static TILE_HD bool producer_starts_early(const Params& p) { return p.older_tokens_settled; }

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    constexpr int BM = Shape::bm;
    using Stage = typename Shape::Stage;
    const int64_t split = blk.bid(0) / p.row_tiles, r0 = (blk.bid(0) % p.row_tiles) * BM;
    const int64_t hk = blk.bid(1), b = blk.bid(2), G = p.group;
    const int64_t Sq = p.q.extent[1], len = p.seq_lens(b);
    // Tiles start at multiples of BN.
    const auto [k_begin, t_end] = visible_keys<BN>(p, split_key_range(split, p.splits, len, BN), len, Sq);
    const int64_t tiles = t_end > k_begin ? (t_end - k_begin + BN - 1) / BN : 0;

    auto pipe = make_pipeline<typename Shape::Pipe>(blk);
    produce_key_tiles<BN, Shape::key_copies>(blk, pipe, p, p.k, p.v, hk, b, k_begin, t_end, tiles, len - Sq);
    pipe.consumers([&] {
      auto o = mma_accumulator<BM, D>(pipe);
      const auto q = load_like(blk, o, head_range(p.q[b], hk * G, G), {r0, 0});
      auto m = full_like(row_max(o), -INFINITY);
      auto l = full_like(m, 0.f);
      int64_t k0 = k_begin;
      for (const Stage& s : pipe.stages(tiles, o)) {
        auto dots = mma_accumulator<BM, BN>(pipe);
        mma(dots, q, transpose(s.a));
        mma_wait(dots, o);
        const auto scores = decode_scores<BN>(p, dots, k0, r0, t_end, len, Sq);
        if (k0 + BN > t_end) pipe.zero_rows(s.b, int(t_end - k0));
        online_softmax_step<T>(scores, m, l, o, [&](auto& acc, const auto& probs) {
          mma(acc, probs, s.b);
          mma_wait(acc);
        });
        pipe.release(s);  // the next products wait for this one anyway: free the stage for the next loads now
        k0 += BN;
      }
      store_result<T>(blk, p, split, b, hk, r0, o, m, l);
    });
  }
};

}  // namespace tessera::ops::kernels
