// Decode attention for a handful of query rows (a decode step's GQA group: 4-8 heads of one token) on the CUDA
// cores, as a streaming kernel like the few-rows matmul (matmul_rows.tile.h). The tensor cores' narrowest
// tile is 16 query rows, so for 4 rows they do 1/4 useful work, and the staged kernels' pipelines take
// microseconds to fill and drain, most of a 2k-key split's time (session 28: 15-18 us a layer at B 1 x 2k,
// for 8 MB of keys and values). Here a block of THREADS threads owns one split of one KV head's keys and
// every query row of its group, and reads its key tiles DEPTH at a time, all asked for before any is used.
//
// The rows of a BN x D key tile are BN independent streams of keys (stream i sees keys i, i + BN, i + 2 BN,
// ... of the split), each with its own online softmax for every query row r, so a key tile needs no reduction
// across rows (the threads of a stream's row reduce its dot products among themselves):
//
//   q_r = query row r of the group (token r / G, head r % G)               -- 1 x D, registers, once
//   for each key tile (K_j, V_j: BN cache rows, one page)
//     s_r    = logits(rowsum(K_j * q_r))                                  -- BN x 1: one score per stream
//     s_r    = where(key < end and key <= position(r) and inside the window, s_r, -inf)   -- edge tiles only
//     rows of V_j past the end = 0                                        -- slots that hold no token may hold NaN
//     m_r' = max(m_r, s_r) (moved only past kRescaleSlack);  p = exp2(s_r - m_r')
//     l_r  = l_r exp2(m_r - m_r') + p;   o_r = o_r exp2(m_r - m_r') + p V_j
//   M_r = colmax(m_r);  w = exp2(m_r - M_r);  L_r = colsum(l_r w);  O_r = colsum(o_r w)   -- the streams combined
//   one split: O_r / L_r;  several: O_r, M_r and L_r to the fp32 partials, which DecodeMerge combines.
//
// A key tile lies in one page (page sizes are multiples of BN, tiles start at multiples of BN), so it is BN
// consecutive rows of its KV head's cache plane: one block-table entry a tile, read by every thread.
#pragma once
#include "ops/attention/fmha_decode_staged.tile.h"

namespace tessera::ops::kernels {

// The cache row of token `first` of sequence b (first a multiple of the key tile, the tile inside one page).
// An entry outside the block table or the cache (the caller's error, unchecked on the GPU) reads row 0 rather
// than out of bounds, as box_rows does.
template <class Params>
TILE_DEVICE int64_t key_tile_row(const Params& p, int64_t b, int32_t first, int32_t pages) {
  const int32_t size = int32_t(p.page_size);
  if (!p.paged) return b * int64_t(size) + first;
  const int32_t index = first / size;
  const int32_t page = index < p.block_table.extent[1] ? p.block_table(b, index) : -1;
  return page >= 0 && page < pages ? int64_t(page) * size + (first - index * size) : 0;
}

// ROWS: query rows a block (Sq x G <= ROWS; rows past Sq x G are zeros whose results are dropped).
// BLOCKS: blocks per multiprocessor (caps the registers).
template <class T, int D, int ROWS, int BN, int THREADS, int DEPTH, int BLOCKS>
struct FmhaDecodeRows {
  static_assert(ROWS >= 1 && ROWS <= 8 && DEPTH >= 1 && DEPTH <= 8, "decode rows: 1-8 query rows, 1-8 tiles in flight");
  static constexpr int threads = THREADS, rows = ROWS, bn = BN, d = D, min_blocks_per_sm = BLOCKS;
  struct Params : DecodeSplitParams<T> {
    tile::View4<const T> q;     // [B, Sq, Hq, D]
    tile::View3<const T> k, v;  // [Hkv planes, cache rows, D]
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t split = blk.bid(0), hk = blk.bid(1), b = blk.bid(2), G = p.group;
    const int64_t Sq = p.q.extent[1], len = p.seq_lens(b);
    const auto [k_begin, t_end] = visible_keys<BN>(p, split_key_range(split, p.splits, len, BN), len, Sq);
    const int64_t tiles = t_end > k_begin ? (t_end - k_begin + BN - 1) / BN : 0;
    const int64_t last_tile = k_begin + (tiles > 0 ? tiles - 1 : 0) * BN;
    const int32_t pages = p.paged ? int32_t(p.k.extent[1] / p.page_size) : 0;
    const auto k_plane = p.k[hk], v_plane = p.v[hk];

    const auto tile_like = zeros<float, BN, D>(blk);
    const auto q_group = head_range(p.q[b], hk * G, G);
    decltype(cast<float>(load_like(blk, col_max(tile_like), q_group, {0, 0}))) q[ROWS];
    decltype(row_max(tile_like)) m[ROWS], l[ROWS];
    std::remove_const_t<decltype(tile_like)> o[ROWS];
    // The loops over rows and tiles are unrolled: indexed by a variable, the arrays would live in local memory.
    TILE_UNROLL(8)
    for (int r = 0; r < ROWS; ++r) {
      q[r] = cast<float>(load_like(blk, col_max(tile_like), q_group, {r, 0}));
      m[r] = full_like(m[r], -INFINITY);
      l[r] = full_like(l[r], 0.f);
      o[r] = tile_like;
    }
    const auto key_in_tile = arange_like(m[0], 0);

    using KV = decltype(load<BN, D>(blk, k_plane, {0, 0}));
    for (int64_t k0 = k_begin; k0 < t_end; k0 += int64_t(DEPTH) * BN) {
      KV kt[DEPTH], vt[DEPTH];
      TILE_UNROLL(8)
      for (int j = 0; j < DEPTH; ++j) {
        // Tiles past the split's end read the last one again (cache hits); they are not used.
        const int64_t first = k0 + j * BN < last_tile ? k0 + j * BN : last_tile;
        const int64_t row = key_tile_row(p, b, int32_t(first), pages);
        kt[j] = load<BN, D>(blk, k_plane, {row, 0}, 0.f, tile::cold_edges);
        vt[j] = load<BN, D>(blk, v_plane, {row, 0}, 0.f, tile::cold_edges);
      }
      TILE_UNROLL(8)
      for (int j = 0; j < DEPTH; ++j) {
        const int64_t t0 = k0 + j * BN;
        if (t0 >= t_end) break;
        const auto key = cast<float>(kt[j]);
        auto value = cast<float>(vt[j]);
        if (t0 + BN > t_end) value = where(key_in_tile < int(t_end - t0), value, 0.f);
        const bool edge = crosses_mask<BN>(p, t0, t_end, len, Sq);
        TILE_UNROLL(8)
        for (int r = 0; r < ROWS; ++r) {
          auto s = p.logits.scores(row_sum(key * q[r]));
          if (edge) s.x = masked(p, s.x, key_in_tile + int(t0), full_like(key_in_tile, int(len - Sq + r / G)), t_end);
          stream_step(s, m[r], l[r], o[r], value);
        }
      }
    }

    TILE_UNROLL(8)
    for (int r = 0; r < ROWS; ++r) {
      const auto m_all = col_max(tile_like + m[r]);
      const auto weight = exp2(m[r] - where(m_all == -INFINITY, 0.f, m_all));
      store_row<T>(blk, p, split, b, hk, r, col_sum(o[r] * weight), m_all, col_sum(l[r] * weight));
    }
  }

  // One key of each stream: the online softmax step (online_softmax.tile.h) with a tile of one key.
  template <class S, class Stat, class Acc, class V>
  TILE_DEVICE static void stream_step(const S& s, Stat& m, Stat& l, Acc& o, const V& value) {
    const auto x = s.x * s.factor;
    const auto moved = x > m + float(kRescaleSlack);
    const auto m_new = where(moved, x, m);
    const auto m_use = where(m_new == -INFINITY, 0.f, m_new);
    const auto rescale = exp2(m - m_use);
    const auto prob = exp2(x - m_use);
    l = l * rescale + prob;
    scale_rows_where(o, moved, rescale);
    o = o + value * prob;
    m = m_new;
  }

  // Query row r's result (1 x D tiles; m and l are the same in every column): o / l with one split, else the
  // split's o, m and l to the partials.
  template <class U, class Block, class O, class V>
  TILE_DEVICE static void store_row(Block& blk, const Params& p, int64_t split, int64_t b, int64_t hk, int r, const O& o,
                                    const V& m, const V& l) {
    const int64_t G = p.group;
    if (p.splits == 1) {
      store(blk, head_range(p.o[b], hk * G, G), {r, 0}, cast<U>(o * inverse_sum(l)));
      return;
    }
    const int64_t part = split * p.seq_lens.extent[0] + b;
    store(blk, head_range(p.o_part[part], hk * G, G), {r, 0}, o);
    store(blk, head_range(p.m_part[part], hk * G, G), {r, 0}, m);
    store(blk, head_range(p.l_part[part], hk * G, G), {r, 0}, l);
  }
};

}  // namespace tessera::ops::kernels
