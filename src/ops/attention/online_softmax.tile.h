// The pieces of FlashAttention that prefill (fmha.tile.h) and decode (fmha_decode.tile.h) share.
//
// Scores are kept in log2 units, s = scale * log2(e) * q.k (soft-capped first when asked), so the softmax
// uses exp2. Each row carries a running max m and sum l of exp2(s - m); for every new tile of scores:
//
//   m_new = max(m, rowmax(s))
//   p     = exp2(s - m_new)                 -- masked scores are -inf: p = 0
//   l     = l * exp2(m - m_new) + rowsum(p)
//   acc   = acc * exp2(m - m_new) + p @ v   -- p cast to the input dtype for the product, fp32 accumulation
//
// A row that has seen no visible key keeps m = -inf; it computes with 0 in place of m_new, so nothing is
// -inf - (-inf) = NaN. At the end o = acc / l, lse = (m + log2(l)) * ln(2), and a row with l = 0 (no visible
// key) gives o = 0 and lse = -inf.
//
// m need not be the exact running max, only a reference that o and l share: a row moves it only when a tile's
// max passes it by more than kRescaleSlack (FlashAttention-4's conditional rescale), so p <= 2^kRescaleSlack,
// and once a row's max has settled (after a tile or two of random keys) its output is no longer rescaled; a
// warp none of whose rows moved skips those multiplications (scale_rows_where).
#pragma once
#include <cmath>

#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

inline constexpr float kLog2e = 1.4426950408889634f;
inline constexpr float kLn2 = 0.6931471805599453f;  // (pass as float(kLn2) to tile operators: a reference to it does not exist on the device)
// Head dims are processed in chunks of this many columns, and keys in tiles of this many rows: equal, so that
// score tiles [BM, kKeyTile] and output chunks [BM, kDimChunk] share one row layout.
inline constexpr int kDimChunk = 64;
inline constexpr int kKeyTile = 64;

// How far (log2 units) a tile's max may pass a row's reference max m before m moves to it.
inline constexpr float kRescaleSlack = 8.f;

// A tile of log2-unit scores as factor * x with factor > 0: x the raw dot products (masked keys -inf), or,
// soft-capped or with a negative scale, the logits themselves with factor 1. The row max is taken on x and
// scaled once a row, and each probability is one fused multiply-add into exp2: scaling the tile first cost a
// multiply a score (64 a thread each key tile of a prefill consumer).
template <class X>
struct Scores {
  X x;
  float factor = 1.f;
};

// Turns raw dot products into log2-unit logits: scale * q.k, or softcap * tanh(scale * q.k / softcap).
struct Logits {
  float scale = 1.f;
  float softcap = 0.f;
  template <class S>
  TILE_DEVICE auto operator()(const S& dots) const {
    if (softcap > 0.f) return tanh(dots * (scale / softcap)) * (softcap * kLog2e);
    return dots * (scale * kLog2e);
  }
  // The same logits as Scores: the dot products themselves with the factor where the scale is positive.
  template <class S>
  TILE_DEVICE Scores<S> scores(const S& dots) const {
    if (softcap > 0.f || scale < 0.f) return {(*this)(dots), 1.f};
    return {dots, scale * kLog2e};
  }
};

// The step's statistics: m and l move on to the new tile; returns the factor that rescales the output rows
// whose reference moved (exactly 1 for the others, or 0 where a row has seen no key, whose output is 0), which
// rows moved, and the probabilities p.
template <class R, class B, class P>
struct SoftmaxWeights {
  R rescale;
  B moved;
  P p;
};
template <class X, class Vec, class Sums>
TILE_DEVICE auto online_softmax_weights(const Scores<X>& s, Vec& m, Sums& l) {
  const auto m_tile = row_max(s.x) * s.factor;  // = row_max(s.x * s.factor): the factor is positive
  const auto moved = m_tile > m + float(kRescaleSlack);
  const auto m_new = where(moved, m_tile, m);
  const auto m_use = where(m_new == -INFINITY, 0.f, m_new);
  SoftmaxWeights<decltype(exp2(m - m_use)), decltype(moved), decltype(exp2(s.x * s.factor - m_use))> w{
      exp2(m - m_use), moved, exp2(s.x * s.factor - m_use)};
  add_row_sums(l, w.rescale, w.p);  // l = l * rescale + row_sum(p); l may be running_row_sums (total(l) at the end)
  m = m_new;
  return w;
}

// acc[c] (c < NV) are the [BM, kDimChunk] chunks of the output rows; m and l the running row max and sum.
// load_v(c) returns chunk c of the value tile matching the score columns.
template <class T, int NV, class Block, class S, class Vec, class Sums, class Acc, class LoadV>
TILE_DEVICE void online_softmax_step(Block& blk, const S& s, Vec& m, Sums& l, Acc (&acc)[NV], LoadV load_v) {
  (void)blk;
  const auto w = online_softmax_weights(s, m, l);
  const auto p_in = cast<T>(w.p);
  for (int c = 0; c < NV; ++c) {
    scale_rows_where(acc[c], w.moved, w.rescale);
    mma(acc[c], p_in, load_v(c));
  }
}

// The same with the output rows in one tile o: accumulate(o, p cast to T) adds p @ v.
template <class T, class S, class Vec, class Sums, class O, class Accumulate>
TILE_DEVICE void online_softmax_step(const S& s, Vec& m, Sums& l, O& o, Accumulate&& accumulate) {
  const auto w = online_softmax_weights(s, m, l);
  scale_rows_where(o, w.moved, w.rescale);
  accumulate(o, cast<T>(w.p));
}

// Folds one split's partial result (its row max m_s, sum l_s and unnormalised output o_s, over its keys) into
// running ones: the online softmax step with a split in place of a key tile (decode's split-KV merge).
template <class Vec, class Acc>
TILE_DEVICE void merge_split(Vec& m, Vec& l, Acc& o, const Vec& m_s, const Vec& l_s, const Acc& o_s) {
  const auto m_new = maximum(m, m_s);
  const auto m_use = where(m_new == -INFINITY, 0.f, m_new);
  const auto keep = exp2(m - m_use), weight = exp2(m_s - m_use);
  l = l * keep + l_s * weight;
  o = o * keep + o_s * weight;
  m = m_new;
}

// 1 / l, or 0 for a row that saw no key.
template <class Vec>
TILE_DEVICE auto inverse_sum(const Vec& l) { return where(l > 0.f, 1.f / l, 0.f); }

// The natural-log log-sum-exp of a row from its log2-unit max and sum; -inf for a row that saw no key.
template <class Vec>
TILE_DEVICE auto log_sum_exp(const Vec& m, const Vec& l) { return where(l > 0.f, (m + log2(l)) * float(kLn2), -INFINITY); }

}  // namespace tessera::ops::kernels
