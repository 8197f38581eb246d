// Decode attention over a paged KV cache as tile kernels.
//
// FmhaDecode: one block per (split of the keys, KV head, sequence), or several along the first axis when a
// GQA group has more query rows than one tile holds. The rows of the Q tile are the group's query heads for
// each of the Sq newest tokens (row r = token r / G, head r % G of the group), so every byte of K and V is
// read once for the whole group. Each key tile is gathered row by row through the block table:
//
//   token t  = k0 + row                       page = block_table[b, t / page_size]
//   slot     = page * page_size + t % page_size    (-1 past the split's end: a zero row, masked below)
//   s        = logits(q @ k^T); where(t < end and t <= position(row) and inside the window, s, -inf)
//   online softmax step (online_softmax.tile.h)
//
// With one split the block writes o = acc / l. With several, each writes its unnormalised acc and its (m, l)
// to fp32 scratch, and DecodeMerge combines the splits of each row.
#pragma once
#include "ops/attention/online_softmax.tile.h"

namespace tessera::ops::kernels {

// Heads [h0, h0 + count) of a [rows, heads, dim] view.
template <class T>
TILE_DEVICE tile::View3<T> head_range(tile::View3<T> v, int64_t h0, int64_t count) {
  v.data += h0 * v.stride[1];
  v.extent[1] = count;
  return v;
}

// What the parameters of the split decode kernels share (fmha_decode_staged.tile.h, fmha_decode_sliced.tile.h,
// mla_decode.tile.h), filled by launch_split_decode (decode_splits.h): the sequences' pages and lengths, the
// output or the splits' fp32 partials, and how query rows and keys are cut.
template <class T>
struct DecodeSplitParams {
  tile::View2<const int32_t> block_table;  // [B, max_pages] when paged
  tile::View1<const int32_t> seq_lens;     // [B]
  tile::View4<T> o;                        // [B, Sq, Hq, Dv]
  tile::View4<float> o_part;               // [splits * B, Sq, Hq, Dv] when splits > 1
  tile::View4<float> m_part, l_part;       // [splits * B, Sq, Hq, 1]
  bool paged;
  int64_t page_size;
  int64_t group;      // G: query heads per KV head
  int64_t row_tiles;  // query row tiles per group (the kernel's block rows)
  int64_t splits;     // key splits (grid axis 0 is splits * row_tiles)
  int64_t window_left;
  Logits logits;
  // The kernel before this one wrote, of the cache, the block table and seq_lens, at most the newest Sq
  // tokens' rows (KvCache::older_tokens_settled): the staged kernels' producers start on the older ones early.
  bool older_tokens_settled;
};

// The keys [begin, end) of split `split` of a sequence of `len` tokens: the splits share the sequence's own
// length in whole tiles of `tile` keys. The split count is chosen on the host from the cache's capacity
// (decode_splits.h: shapes only, so a captured step replays), but the keys are those of this step: a short
// sequence in a long cache still spreads over every split, instead of leaving all but the first few empty.
struct KeyRange {
  int64_t begin, end;
};
TILE_HD KeyRange split_key_range(int64_t split, int64_t splits, int64_t len, int64_t tile) {
  const int64_t tiles = (len + tile - 1) / tile;
  const int64_t per = (tiles + splits - 1) / splits * tile;
  const int64_t begin = split * per;
  return {begin, begin + per < len ? begin + per : len};
}

template <class T, int BM, int DQK, int DV, int THREADS>
struct FmhaDecode {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View4<const T> q;                  // [B, Sq, Hq, DQK]
    tile::View4<const T> k_pages, v_pages;   // [Hkv, num_pages, page_size, D] (head-major views)
    tile::View4<const int32_t> block_table;  // [B, max_pages, 1, 1]; unused for a contiguous cache
    tile::View1<const int32_t> seq_lens;     // [B]
    tile::View4<T> o;                        // [B, Sq, Hq, DV]
    tile::View4<float> o_part;               // [splits * B, Sq, Hq, DV] when splits > 1
    tile::View4<float> m_part, l_part;       // [splits * B, Sq, Hq, 1]
    bool paged;
    int64_t group;             // G: query heads per KV head
    int64_t row_tiles;         // Q tiles per group: ceil(Sq * G / BM)
    int64_t splits;            // key splits (grid axis 0 is splits * row_tiles)
    int64_t window_left;
    Logits logits;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    constexpr int BN = kKeyTile, DC = kDimChunk, NQ = DQK / DC, NV = DV / DC;
    const int64_t split = blk.bid(0) / p.row_tiles, r0 = (blk.bid(0) % p.row_tiles) * BM;
    const int64_t hk = blk.bid(1), b = blk.bid(2), G = p.group;
    const int64_t Sq = p.q.extent[1], page_size = p.k_pages.extent[2];
    const int64_t len = p.seq_lens(b);
    const auto [t_begin, t_end] = split_key_range(split, p.splits, len, BN);
    // The earliest token any query row may see (the window of the first query token).
    const int64_t first_visible = p.window_left >= 0 ? len - Sq - p.window_left : 0;

    const auto rows = arange<BM, 1>(blk, 0) + int(r0);  // rows of the group's [Sq, G] (token, head) grid
    const auto q_group = head_range(p.q[b], hk * G, G);
    decltype(gather_rows<DC>(blk, q_group, rows, 0)) q_chunk[NQ];
    for (int c = 0; c < NQ; ++c) q_chunk[c] = gather_rows<DC>(blk, q_group, rows, int64_t(c) * DC);
    decltype(zeros<float, BM, DC>(blk)) acc[NV];
    for (int c = 0; c < NV; ++c) acc[c] = zeros<float, BM, DC>(blk);
    auto m = full_like(row_max(zeros<float, BM, BN>(blk)), -INFINITY);
    auto l = full_like(m, 0.f);
    // Query row r is token r / G, at position len - Sq + r / G.
    const auto position = (arange<BM, BN>(blk, 0) + int(r0)) / int(G) + int(len - Sq);
    const auto column = arange<BM, BN>(blk, 1);
    const auto k_head = p.k_pages[hk], v_head = p.v_pages[hk];

    for (int64_t k0 = t_begin; k0 < t_end; k0 += BN) {
      if (k0 + BN <= first_visible) continue;
      const auto token = arange<BN, 1>(blk, 0) + int(k0);
      const auto page = p.paged ? gather_rows<1>(blk, p.block_table[b], token / int(page_size), 0, -1.f)
                                : full_like(token, int(b));
      const auto slot = where((token < int(t_end)) & (page >= 0), page * int(page_size) + (token - token / int(page_size) * int(page_size)), -1);
      auto dots = zeros<float, BM, BN>(blk);
      for (int c = 0; c < NQ; ++c) mma_nt(dots, q_chunk[c], gather_rows<DC>(blk, k_head, slot, int64_t(c) * DC));
      const auto key = column + int(k0);
      auto visible = (key < int(t_end)) & (key <= position);
      if (p.window_left >= 0) visible = visible & (key >= position - int(p.window_left));
      auto s = p.logits.scores(dots);
      s.x = where(visible, s.x, -INFINITY);
      online_softmax_step<T>(blk, s, m, l, acc, [&](int c) { return gather_rows<DC>(blk, v_head, slot, int64_t(c) * DC); });
    }

    if (p.splits == 1) {
      const auto inv_l = inverse_sum(l);
      const auto o_group = head_range(p.o[b], hk * G, G);
      for (int c = 0; c < NV; ++c) scatter_rows(blk, o_group, rows, int64_t(c) * DC, cast<T>(acc[c] * inv_l));
      return;
    }
    const int64_t part = split * p.seq_lens.extent[0] + b;
    const auto o_group = head_range(p.o_part[part], hk * G, G);
    for (int c = 0; c < NV; ++c) scatter_rows(blk, o_group, rows, int64_t(c) * DC, acc[c]);
    scatter_rows(blk, head_range(p.m_part[part], hk * G, G), rows, 0, m);
    scatter_rows(blk, head_range(p.l_part[part], hk * G, G), rows, 0, l);
  }
};

// Grid (ceil(Sq * Hq / BM), B, DV / cols): combines the splits of BM rows (token, head) of one sequence, in
// column chunks of `cols`, split after split. For many rows and few splits (a batch's decode step): the rows
// give the parallelism, and a block of 8 rows costs less than 8 blocks of DecodeMerge (B = 8 at 2k keys, 4
// splits: 26.7 against 28.1 us for the whole attention, session 26). o_part [splits, B, Sq * Hq, DV]; m_part / l_part [splits, B, Sq * Hq, 1], read as
// row statistics that broadcast over the output rows; o [B, Sq, Hq, DV].
template <class T, int BM, int DV, int THREADS>
struct DecodeMergeRows {
  static constexpr int threads = THREADS, cols = DV < 64 ? DV : 64;
  struct Params {
    tile::View4<const float> o_part, m_part, l_part;
    tile::View4<T> o;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r0 = blk.bid(0) * BM, b = blk.bid(1), c0 = blk.bid(2) * cols, splits = p.o_part.extent[0];
    const auto statistic = row_max(zeros<float, BM, cols>(blk));  // the layout of a row statistic
    // One pass over the splits, rescaling as the running maximum grows (the online softmax, over splits). The
    // splits' loads do not depend on each other: unrolled, a few of them are in flight at once, where two
    // passes waited for memory twice per split (16 splits of a 4k-token sequence: 19 us for 8 blocks).
    auto m = full_like(statistic, -INFINITY);
    auto l = full_like(statistic, 0.f);
    auto acc = zeros<float, BM, cols>(blk);
    TILE_UNROLL(4)
    for (int64_t s = 0; s < splits; ++s)
      merge_split(m, l, acc, load_like(blk, statistic, p.m_part[s][b], {r0, 0}, -INFINITY),
                  load_like(blk, statistic, p.l_part[s][b], {r0, 0}), load<BM, cols>(blk, p.o_part[s][b], {r0, c0}));
    const auto rows = arange<BM, 1>(blk, 0) + int(r0);
    scatter_rows(blk, p.o[b], rows, c0, cast<T>(acc * inverse_sum(l)));
  }
};

// Combines the splits of one (token, head) row, in column chunks of `cols`; grid (Hq, Sq, B * DV / cols). The
// splits are the rows of a tile, SPLITS at a time, so every split's loads are in flight at once and the
// combination is a reduction down the columns, not a chain through the splits:
//
//   M = max_s m_s;   w_s = exp2(m_s - M);   o = sum_s w_s acc_s / sum_s w_s l_s   (0 when the sum is 0)
//
// (one chunk of splits; more rescale the running sums by exp2(M_old - M_new)). Merging split after split in a
// few threads was a chain of dependent steps per split: 8 blocks took 8 us for 8 splits and 22 us for 32
// (Nsight Compute, H200, session 26).
// o_part [B, Sq * Hq, splits, DV] and m_part / l_part [B, Sq * Hq, splits, 1] (strided views of the scratch);
// o [B, Sq, Hq, DV].
template <class T, int SPLITS, int DV, int THREADS>
struct DecodeMerge {
  static constexpr int threads = THREADS, cols = DV < 128 ? DV : 128, chunks = DV / cols;
  struct Params {
    tile::View4<const float> o_part, m_part, l_part;
    tile::View4<T> o;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t h = blk.bid(0), t = blk.bid(1), b = blk.bid(2) / chunks, c0 = blk.bid(2) % chunks * cols;
    const int64_t row = t * p.o.extent[2] + h, splits = p.o_part.extent[2];
    const auto o_part = p.o_part[b][row], m_part = p.m_part[b][row], l_part = p.l_part[b][row];
    const auto split_rows = zeros<float, SPLITS, cols>(blk);
    const auto statistic = row_max(split_rows);  // the layout of one value per split
    auto m = full_like(col_max(split_rows), -INFINITY);  // running over chunks of splits, one per column
    auto l = full_like(m, 0.f);
    auto acc = full_like(m, 0.f);
    for (int64_t s0 = 0; s0 < splits; s0 += SPLITS) {
      // Splits past the last read m = -inf, l = 0 and acc = 0: their weight is 0.
      const auto m_s = split_rows + load_like(blk, statistic, m_part, {s0, 0}, -INFINITY);
      const auto l_s = load_like(blk, statistic, l_part, {s0, 0});
      const auto acc_s = load<SPLITS, cols>(blk, o_part, {s0, c0});
      const auto m_new = maximum(m, col_max(m_s));
      const auto m_use = where(m_new == -INFINITY, 0.f, m_new);
      const auto weight = exp2(m_s - m_use);
      const auto keep = exp2(m - m_use);
      l = l * keep + col_sum(weight * l_s);
      acc = acc * keep + col_sum(weight * acc_s);
      m = m_new;
    }
    store(blk, p.o[b][t], {h, c0}, cast<T>(acc * inverse_sum(l)));
  }
};

}  // namespace tessera::ops::kernels
