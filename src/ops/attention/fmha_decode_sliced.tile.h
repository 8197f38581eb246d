// Decode attention for few query rows, on the staged pipeline of fmha_decode_staged.tile.h (same producer,
// same cache rows, same splits). A block owns 16 (token, head) query rows of one KV head's group (a decode
// step's group of GQA heads, or a few speculative tokens of it) instead of 64: with 4 heads a group, 60 of
// the staged kernel's 64 rows were padding, and each consumer thread's chain of instructions was as long as
// for 64 real rows.
//
// Here each key tile is cut in S slices (4 per consumer warpgroup) and the tiles are sliced (host/slices.h):
// slice s of every tile below holds the same 16 query rows against slice s of the keys, so the slices share
// the tile's work (on the GPU each is one warp, on the warp-level tensor-core instruction), each with its own
// online softmax:
//
//   q = the 16 query rows, in every slice
//   for each key tile j (one stage: K_j, V_j), per slice s (keys [s BN/S, (s+1) BN/S) of the tile):
//     s = logits(q @ K_j,s^T);  masked as in the staged kernel
//     m_new = max(m, rowmax(s));  p = exp2(s - m_new);  l = l exp2(m - m_new) + rowsum(p)
//     o = o exp2(m - m_new) + p @ V_j,s
//   M = max over slices of m;  w = exp2(m - M);  L = sum over slices of l w;  O = sum over slices of o w
//   one split: O / L;  several: O, M and L to the fp32 partials, which DecodeMerge combines.
#pragma once
#include "ops/attention/fmha_decode_staged.tile.h"

namespace tessera::ops::kernels {

// CONSUMERS warpgroups of four slices each: a key tile is cut in 4 CONSUMERS slices.
template <class T, int D, int BN, int STAGES, int BLOCKS, int CONSUMERS, bool THREADS = false>
struct FmhaDecodeSliced : FmhaDecodeStaged<T, D, BN, STAGES, BLOCKS, THREADS> {
  using Base = FmhaDecodeStaged<T, D, BN, STAGES, BLOCKS, THREADS>;
  using Params = typename Base::Params;
  using Pipe = typename Base::Shape::template Copied<tile::PipelineShape<typename Base::Shape::Stage, STAGES, CONSUMERS>>;
  static constexpr int threads = Pipe::threads;
  static constexpr size_t shared_bytes = Pipe::shared_bytes;
  static constexpr int rows = tile::kSliceRows;  // query rows of a block
  static constexpr int slices = 4 * CONSUMERS, slice_keys = BN / slices;

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    constexpr int SR = slices * rows;  // rows of a sliced tile
    const int64_t split = blk.bid(0) / p.row_tiles, r0 = (blk.bid(0) % p.row_tiles) * rows;
    const int64_t hk = blk.bid(1), b = blk.bid(2), G = p.group;
    const int64_t Sq = p.q.extent[1], len = p.seq_lens(b);
    const auto [k_begin, t_end] = visible_keys<BN>(p, split_key_range(split, p.splits, len, BN), len, Sq);
    const int64_t tiles = t_end > k_begin ? (t_end - k_begin + BN - 1) / BN : 0;

    auto pipe = make_pipeline<Pipe>(blk);
    produce_key_tiles<BN, Base::Shape::key_copies>(blk, pipe, p, p.k, p.v, hk, b, k_begin, t_end, tiles, len - Sq);
    pipe.consumers([&] {
      auto o = mma_accumulator<SR, D>(pipe);
      const auto q = load_slices(blk, o, head_range(p.q[b], hk * G, G), {r0, 0});
      auto m = full_like(row_max(o), -INFINITY);
      auto l = full_like(m, 0.f);
      // Row 16 s + r of a score tile: query row r0 + r, at position len - Sq + (r0 + r) / G, against key
      // s BN/S + column of the tile.
      const auto like = mma_accumulator<SR, slice_keys>(pipe);
      const auto slice = arange_like(like, 0) / int(rows);
      const auto position = (arange_like(like, 0) - slice * int(rows) + int(r0)) / int(G) + int(len - Sq);
      const auto key_in_tile = arange_like(like, 1) + slice * int(slice_keys);
      int64_t k0 = k_begin;
      for (int64_t j = 0; j < tiles; ++j, k0 += BN) {
        const auto s = pipe.acquire();
        auto dots = mma_accumulator<SR, slice_keys>(pipe);
        mma_slices(dots, q, transpose(s.a));
        auto scores = p.logits.scores(dots);
        if (crosses_mask<BN>(p, k0, t_end, len, Sq)) scores.x = masked(p, scores.x, key_in_tile + int(k0), position, t_end);
        if (k0 + BN > t_end) pipe.zero_rows(s.b, int(t_end - k0));
        online_softmax_step<T>(scores, m, l, o, [&](auto& acc, const auto& probs) { mma_slices(acc, probs, s.b); });
        pipe.release(s);
      }
      const auto m_all = pipe.slice_max(m);
      const auto weight = exp2(m - repeat_slices<slices>(where(m_all == -INFINITY, 0.f, m_all)));
      store_result<T>(blk, p, split, b, hk, r0, pipe.slice_sum(o * weight), m_all, pipe.slice_sum(l * weight));
    });
  }
};

}  // namespace tessera::ops::kernels
