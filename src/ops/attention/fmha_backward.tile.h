// Prefill attention backward (FlashAttention-2's algorithm) on the staged pipeline, in two kernels that
// recompute the probabilities from the saved log-sum-exp instead of storing them:
//
//   delta kernel: delta_i = rowsum(dO_i * O_i) for every query row (read by both kernels below)
//
//   dQ kernel, a block per BM query rows of one head (Q_i, dO_i resident), key tiles K_j, V_j streamed:
//     for each key tile j the rows can see:
//       P    = exp2(logits(Q_i K_j^T) - lse_i log2 e)    -- masked to 0 where a key is not visible
//       dP   = dO_i V_j^T
//       dS   = P * (dP - delta_i)  (* (1 - tanh^2) with soft-capping)
//       dQ_i += dS K_j
//     dQ_i *= scale
//
//   dK/dV kernel, a block per BN keys of one KV head (K_j, V_j resident), query tiles Q_i, dO_i of every query
//   head of its group streamed; the same products transposed, so that the block's keys are the rows:
//     P^T  = exp2(logits(K_j Q_i^T) - lse_i log2 e)      -- lse and delta broadcast along the columns
//     dV_j += P^T dO_i
//     dS^T = P^T * (V_j dO_i^T - delta_i)
//     dK_j += dS^T Q_i
//     dK_j *= scale
//
// Every gradient is accumulated by one block in fp32 registers: no atomics, deterministic. The price is
// computing Q K^T and dO V^T twice (7 products where a fused kernel with atomic dQ does 5).
#pragma once
#include <utility>

#include "ops/attention/fmha.tile.h"
#include "tessera/tile/staged.h"

namespace tessera::ops::kernels {

// x where key `key` is visible from query position `position` (key coordinates), 0 elsewhere.
template <class X, class I>
TILE_DEVICE X where_visible(const X& x, const I& key, const I& position, int64_t Sk, const MaskParams& mask) {
  auto visible = key < int(Sk);
  if (mask.causal) visible = visible & (key <= position);
  if (mask.window_left >= 0) visible = visible & (key >= position - int(mask.window_left));
  return where(visible, x, 0.f);
}

// Whether the tile of keys [k0, k0 + keys) against query positions [p0, p0 + queries) (key coordinates)
// crosses an edge of the mask (the last key, the causal diagonal, the window's left edge): only such tiles pay
// for the mask.
TILE_DEVICE bool crosses_mask(int64_t k0, int keys, int64_t p0, int queries, int64_t Sk, const MaskParams& mask) {
  const bool past_end = k0 + keys > Sk;
  const bool diagonal = mask.causal && k0 + keys - 1 > p0;
  const bool window = mask.window_left >= 0 && k0 < p0 + queries - 1 - mask.window_left;
  return past_end || diagonal || window;
}

// dS / P: dP - delta, times the derivative of the soft cap, which in log2-unit scores s is 1 - tanh^2 with
// tanh = s / (softcap log2 e). Computed before the probabilities, so that the scores' registers become theirs.
template <class D, class Delta, class S>
TILE_DEVICE D score_gradient_factor(const D& dp, const Delta& delta, const S& scores, const MaskParams& mask) {
  if (mask.logits.softcap > 0.f) {
    const auto t = scores * (1.f / (mask.logits.softcap * float(kLog2e)));
    return (dp - delta) * (1.f - t * t);
  }
  return dp - delta;
}

// The two products of a step, waited for: the resident tiles times the stage's, transposed (Q K^T and
// dO V^T in the dQ kernel; K Q^T and V dO^T in the dK/dV kernel).
template <int M, int N, class Pipe, class Resident, class Held>
TILE_DEVICE auto score_products(Pipe& pipe, const Resident& resident, const Held& held) {
  auto dots = mma_accumulator<M, N>(pipe);
  auto dp = mma_accumulator<M, N>(pipe);
  mma(dots, resident.a, transpose(held.a));
  mma(dp, resident.b, transpose(held.b));
  mma_wait(dots, dp);
  return std::pair{dots, dp};
}

// The shapes: 64 rows per consumer warpgroup, two consumers. The dQ kernel's block owns bm query rows and
// streams key tiles of BN; the dK/dV kernel's block owns bm keys and streams query tiles of BQ.
template <class T, int D, int BN, int STAGES>
struct BackwardDqShape {
  static constexpr int consumers = 2, bm = 64 * consumers, bn = BN, d = D;
  using Stage = tile::Stage<tile::SharedTile<T, BN, D>, tile::SharedTile<T, BN, D>>;      // K_j, V_j
  using Resident = tile::Stage<tile::SharedTile<T, bm, D>, tile::SharedTile<T, bm, D>>;  // Q_i, dO_i
  using Pipe = tile::PipelineShape<Stage, STAGES, consumers, tile::Consumers::cooperative, Resident>;
  using Rows = tile::TmaTensor<T, bm, D, 3>;  // Q or dO as [B * Hq, Sq, D] planes
  using Keys = tile::TmaTensor<T, BN, D, 3>;  // K or V as [B * Hkv, Sk, D] planes
};

template <class T, int D, int BQ, int STAGES>
struct BackwardDkvShape {
  static constexpr int consumers = 2, bm = 64 * consumers, bq = BQ, d = D;
  using Stage = tile::Stage<tile::SharedTile<T, BQ, D>, tile::SharedTile<T, BQ, D>>;     // Q_i, dO_i
  using Resident = tile::Stage<tile::SharedTile<T, bm, D>, tile::SharedTile<T, bm, D>>;  // K_j, V_j
  using Pipe = tile::PipelineShape<Stage, STAGES, consumers, tile::Consumers::cooperative, Resident>;
  using Rows = tile::TmaTensor<T, BQ, D, 3>;
  using Keys = tile::TmaTensor<T, bm, D, 3>;
};

// Grid (ceil(Sq / bm), Hq, B). q, d_o as [B * Hq, Sq, D] planes and k, v as [B * Hkv, Sk, D] for the copy
// engine; lse and delta [B, Hq, Sq, 1]; writes dq [B, Hq, Sq, D].
template <class T, int D, int BN, int STAGES>
struct FmhaBackwardDq : BackwardDqShape<T, D, BN, STAGES> {
  using Shape = BackwardDqShape<T, D, BN, STAGES>;
  static constexpr int threads = Shape::Pipe::threads;
  static constexpr size_t shared_bytes = Shape::Pipe::shared_bytes;
  struct Params {
    typename Shape::Rows q, d_o;
    typename Shape::Keys k, v;
    tile::View4<const float> lse, delta;
    tile::View4<T> dq;
    int64_t kv_heads, group;
    MaskParams mask;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    constexpr int BM = Shape::bm;
    using Stage = typename Shape::Stage;
    const int64_t h = blk.bid(1), b = blk.bid(2), heads = p.dq.extent[1];
    const int64_t q0 = query_tile_row(blk.bid(0), p.dq.extent[2], BM, p.mask.causal);
    const int64_t Sq = p.dq.extent[2], Sk = p.k.view.extent[1], offset = Sk - Sq, kv_plane = b * p.kv_heads + h / p.group;
    const MaskParams& mask = p.mask;

    // The keys that any row of this block may see, in tiles of BN.
    int64_t k_begin = 0, k_end = Sk;
    if (mask.causal) k_end = q0 + BM + offset < Sk ? q0 + BM + offset : Sk;
    if (mask.window_left >= 0 && q0 + offset - mask.window_left > 0) k_begin = (q0 + offset - mask.window_left) / BN * BN;
    const int64_t tiles = k_end > k_begin ? (k_end - k_begin + BN - 1) / BN : 0;

    auto pipe = make_pipeline<typename Shape::Pipe>(blk);
    pipe.load_resident([&](typename Shape::Resident& r) {
      load_async(blk, r.a, p.q, b * heads + h, {q0, 0});
      load_async(blk, r.b, p.d_o, b * heads + h, {q0, 0});
    });
    pipe.producer(tiles, [&](Stage& s, int64_t j) {
      load_async(blk, s.a, p.k, kv_plane, {k_begin + j * BN, 0});
      load_async(blk, s.b, p.v, kv_plane, {k_begin + j * BN, 0});
    });
    pipe.consumers([&] {
      auto dq = mma_accumulator<BM, D>(pipe);
      const auto rows_like = row_sum(dq);
      const auto delta = load_like(blk, rows_like, p.delta[b][h], {q0, 0});
      // Rows past the end read lse = +inf: their probabilities are 0.
      const auto lse2 = load_like(blk, rows_like, p.lse[b][h], {q0, 0}, INFINITY) * float(kLog2e);
      const auto resident = pipe.resident();
      for (int64_t j = 0; j < tiles; ++j) {
        const int64_t k0 = k_begin + j * BN;
        auto held = pipe.acquire();
        auto [dots, dp] = score_products<BM, BN>(pipe, resident, held);
        const auto scores = mask.logits(dots);
        dp = score_gradient_factor(dp, delta, scores, mask);
        auto probs = exp2(scores - lse2);
        if (crosses_mask(k0, BN, q0 + offset, BM, Sk, mask))
          probs = where_visible(probs, arange_like(dots, 1) + int(k0), arange_like(dots, 0) + int(q0 + offset), Sk, mask);
        mma(dq, cast<T>(probs * dp), held.a);
        mma_wait(dq);
        pipe.release(held);
      }
      pipe.release_resident();
      store(blk, p.dq[b][h], {q0, 0}, cast<T>(dq * mask.logits.scale));
    });
  }
};

// delta = rowsum(dO * O) per query row. Grid (ceil(Sq / R), Hq, B); o, d_o [B, Hq, Sq, D]; delta [B, Hq, Sq, 1].
template <class T, int R, int D, int THREADS>
struct FmhaBackwardDelta {
  static constexpr int threads = THREADS, rows = R;
  struct Params {
    tile::View4<const T> o, d_o;
    tile::View4<float> delta;
  };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t q0 = blk.bid(0) * R, h = blk.bid(1), b = blk.bid(2);
    const auto x = cast<float>(load<R, D>(blk, p.d_o[b][h], {q0, 0})) * cast<float>(load<R, D>(blk, p.o[b][h], {q0, 0}));
    store(blk, p.delta[b][h], {q0, 0}, row_sum(x));
  }
};

// Grid (ceil(Sk / bm), Hkv, B). k, v as [B * Hkv, Sk, D] planes and q, d_o as [B * Hq, Sq, D]; lse and delta
// [B, Hq, 1, Sq] (a row per head, read across the score tile's columns); writes dk, dv [B, Hkv, Sk, D].
template <class T, int D, int BQ, int STAGES>
struct FmhaBackwardDkv : BackwardDkvShape<T, D, BQ, STAGES> {
  using Shape = BackwardDkvShape<T, D, BQ, STAGES>;
  static constexpr int threads = Shape::Pipe::threads;
  static constexpr size_t shared_bytes = Shape::Pipe::shared_bytes;
  struct Params {
    typename Shape::Rows q, d_o;
    typename Shape::Keys k, v;
    tile::View4<const float> lse, delta;
    tile::View4<T> dk, dv;
    int64_t q_heads, group;
    MaskParams mask;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    constexpr int BM = Shape::bm;
    using Stage = typename Shape::Stage;
    const int64_t k0 = blk.bid(0) * BM, kv_head = blk.bid(1), b = blk.bid(2);
    const int64_t Sq = p.lse.extent[3], Sk = p.dk.extent[2], offset = Sk - Sq;
    const MaskParams& mask = p.mask;

    // The query rows that see any of this block's keys, in tiles of BQ, for each query head of the group.
    int64_t q_begin = 0, q_end = Sq;
    if (mask.causal && k0 - offset > 0) q_begin = (k0 - offset) / BQ * BQ;
    if (mask.window_left >= 0 && k0 + BM - offset + mask.window_left < Sq) q_end = k0 + BM - offset + mask.window_left;
    const int64_t per_head = q_end > q_begin ? (q_end - q_begin + BQ - 1) / BQ : 0, tiles = per_head * p.group;
    auto head_of = [&](int64_t j) { return kv_head * p.group + j / per_head; };
    auto row_of = [&](int64_t j) { return q_begin + (j % per_head) * BQ; };

    auto pipe = make_pipeline<typename Shape::Pipe>(blk);
    pipe.load_resident([&](typename Shape::Resident& r) {
      load_async(blk, r.a, p.k, b * p.dk.extent[1] + kv_head, {k0, 0});
      load_async(blk, r.b, p.v, b * p.dk.extent[1] + kv_head, {k0, 0});
    });
    pipe.producer(tiles, [&](Stage& s, int64_t j) {
      load_async(blk, s.a, p.q, b * p.q_heads + head_of(j), {row_of(j), 0});
      load_async(blk, s.b, p.d_o, b * p.q_heads + head_of(j), {row_of(j), 0});
    });
    pipe.consumers([&] {
      auto dk = mma_accumulator<BM, D>(pipe);
      auto dv = mma_accumulator<BM, D>(pipe);
      const auto resident = pipe.resident();
      for (int64_t j = 0; j < tiles; ++j) {
        const int64_t h = head_of(j), q0 = row_of(j);
        auto held = pipe.acquire();
        auto [dots, dp] = score_products<BM, BQ>(pipe, resident, held);
        // The head's lse and delta as a row broadcast over the block's keys; queries past the end read
        // lse = +inf (probability 0).
        const auto lse_row = p.lse[b][h].broadcast_rows(BM), delta_row = p.delta[b][h].broadcast_rows(BM);
        const auto scores = mask.logits(dots);
        dp = score_gradient_factor(dp, load_like(blk, dots, delta_row, {0, q0}), scores, mask);
        auto probs = exp2(scores - load_like(blk, dots, lse_row, {0, q0}, INFINITY) * float(kLog2e));
        if (crosses_mask(k0, BM, q0 + offset, BQ, Sk, mask))
          probs = where_visible(probs, arange_like(dots, 0) + int(k0), arange_like(dots, 1) + int(q0 + offset), Sk, mask);
        mma(dv, cast<T>(probs), held.b);
        mma(dk, cast<T>(probs * dp), held.a);
        mma_wait(dv, dk);
        pipe.release(held);
      }
      pipe.release_resident();
      store(blk, p.dk[b][kv_head], {k0, 0}, cast<T>(dk * mask.logits.scale));
      store(blk, p.dv[b][kv_head], {k0, 0}, cast<T>(dv));
    });
  }
};

}  // namespace tessera::ops::kernels
