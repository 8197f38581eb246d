// MLA decode (DeepSeek-V2/V3, projections absorbed) on the staged pipeline (the Hopper path). Every query head
// attends to one latent cache: a token's row is its c_kv (R = 512 columns) then its rope key (64), the key is
// the whole row and the value its c_kv. A block owns 64 (token, head) query rows of one sequence (row r is
// token r / H, head r % H) and one split of its keys; the producer streams each key tile's latent rows once
// for all of them, through the block table as fmha_decode_staged.tile.h does. The 64 x 512 output is wider
// than one consumer warpgroup holds, so two hold it in column shares (Consumers::column_shares), 256 columns
// each. The first also scores each key tile and runs the softmax alone (solo, as FlashMLA splits the work):
// it hands the probabilities and the rows' rescale factors to both, and scores the next tile while the other
// multiplies its share of the values.
//
//   q = the block's query rows: q_c (their c_kv part) and q_r (their rope part)   -- shared memory, once
//   for each key tile j of the split (one stage: C_j its c_kv rows, R_j its rope keys):
//     rows of the tile past the end = 0                    -- slots that hold no token may hold NaN
//     the first consumer alone:
//       s = logits(q_c @ C_j^T + q_r @ R_j^T)
//       s = where(key visible, s, -inf)                    -- edge tiles only
//       m_new = max(m, rowmax(s));  p = exp2(s - m_new);  l = l exp2(m - m_new) + rowsum(p)
//     every consumer, its own columns:  o = o exp2(m - m_new) + p @ C_j
//   one split: O = o / l;  several: o, m and l to the fp32 partials, merged as fmha_decode's are.
#pragma once
#include "ops/attention/fmha_decode_staged.tile.h"
#include "tessera/tile/solo.h"

namespace tessera::ops::kernels {

inline constexpr int kMlaRank = 512, kMlaRope = 64;  // DeepSeek-V2/V3's kv_lora_rank and rope head dim

template <class T, int BN, int STAGES>
struct MlaDecodeShape {
  using value_type = T;
  static constexpr int bm = 64, bn = BN, d = kMlaRank, consumers = 2;
  using Stage = tile::Stage<tile::SharedTile<T, BN, kMlaRank>, tile::SharedTile<T, BN, kMlaRope>>;  // C_j, R_j
  using QueryTile = tile::Stage<tile::SharedTile<T, bm, kMlaRank>, tile::SharedTile<T, bm, kMlaRope>>;
  using Pipe = tile::PipelineShape<Stage, STAGES, consumers, tile::Consumers::column_shares, QueryTile>;
};

template <class T, int BN, int STAGES>
struct MlaDecodeStaged : MlaDecodeShape<T, BN, STAGES> {
  using Shape = MlaDecodeShape<T, BN, STAGES>;
  static constexpr int threads = Shape::Pipe::threads;
  static constexpr size_t shared_bytes = Shape::Pipe::shared_bytes;
  // One KV head: group = H.
  struct Params : DecodeSplitParams<T> {
    tile::TmaTensor<T, 64, kMlaRank, 3> q_latent;       // q's c_kv part as [B planes, Sq * H rows, R]
    tile::TmaTensor<T, 64, kMlaRope, 3> q_rope;         // q's rope part, the same rows
    tile::TmaTensor<T, kCacheBox, kMlaRank, 3> k;       // the cache's c_kv columns as [1 plane, cache rows, R]
    tile::TmaTensor<T, kCacheBox, kMlaRope, 3> k_rope;  // its rope columns, the same rows
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    constexpr int BM = Shape::bm;
    using Stage = typename Shape::Stage;
    const int64_t split = blk.bid(0) / p.row_tiles, r0 = (blk.bid(0) % p.row_tiles) * BM, b = blk.bid(1);
    const int64_t Sq = p.o.extent[1], len = p.seq_lens(b);
    const auto [k_begin, t_end] = visible_keys<BN>(p, split_key_range(split, p.splits, len, BN), len, Sq);
    const int64_t tiles = t_end > k_begin ? (t_end - k_begin + BN - 1) / BN : 0;

    auto pipe = make_pipeline<typename Shape::Pipe>(blk);
    pipe.load_resident([&](typename Shape::QueryTile& r) {
      load_async(blk, r.a, p.q_latent, b, {r0, 0});
      load_async(blk, r.b, p.q_rope, b, {r0, 0});
    });
    produce_key_tiles<BN, KeyCopies::by_boxes>(blk, pipe, p, p.k, p.k_rope, 0, b, k_begin, t_end, tiles, len - Sq);
    pipe.consumers([&] {
      auto o = mma_accumulator<BM, kMlaRank>(pipe);
      const auto q = pipe.resident();
      auto scoring = solo(pipe);
      // The running max and sum: the soloist's alone until the end.
      auto m = full_like(row_max(mma_accumulator<BM, BN>(scoring)), -INFINITY);
      auto l = full_like(m, 0.f);
      int64_t k0 = k_begin;
      for (const Stage& s : pipe.stages(tiles, o)) {
        if (k0 + BN > t_end) {
          pipe.zero_rows(s.a, int(t_end - k0));
          pipe.zero_rows(s.b, int(t_end - k0));
        }
        const auto [probs, moved, rescale] = scoring.run([&] {
          auto dots = mma_accumulator<BM, BN>(scoring);
          mma(dots, q.a, transpose(s.a));
          mma(dots, q.b, transpose(s.b));
          mma_wait(dots);
          const auto w = online_softmax_weights(decode_scores<BN>(p, dots, k0, r0, t_end, len, Sq), m, l);
          return std::tuple{cast<T>(w.p), w.moved, w.rescale};
        });
        scale_rows_where(o, moved, rescale);
        mma(o, probs, s.a);
        mma_wait(o);
        pipe.release(s);
        k0 += BN;
      }
      pipe.release_resident();
      const auto [m_final, l_final] = scoring.run([&] { return std::tuple{m, l}; });
      store_result<T>(blk, p, split, b, 0, r0, o, m_final, l_final);
    });
  }
};

}  // namespace tessera::ops::kernels
