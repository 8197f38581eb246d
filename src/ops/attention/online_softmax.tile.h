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

// Turns raw dot products into log2-unit logits: scale * q.k, or softcap * tanh(scale * q.k / softcap).
struct Logits {
  float scale = 1.f;
  float softcap = 0.f;
  template <class S>
  TILE_DEVICE auto operator()(const S& dots) const {
    if (softcap > 0.f) return tanh(dots * (scale / softcap)) * (softcap * kLog2e);
    return dots * (scale * kLog2e);
  }
};

// The step's statistics: m and l move on to the new tile; returns the factor that rescales the output rows
// and the probabilities p.
template <class R, class P>
struct SoftmaxWeights {
  R rescale;
  P p;
};
template <class S, class Vec>
TILE_DEVICE auto online_softmax_weights(const S& s, Vec& m, Vec& l) {
  const auto m_new = maximum(m, row_max(s));
  const auto m_use = where(m_new == -INFINITY, 0.f, m_new);
  SoftmaxWeights<decltype(exp2(m - m_use)), decltype(exp2(s - m_use))> w{exp2(m - m_use), exp2(s - m_use)};
  l = l * w.rescale + row_sum(w.p);
  m = m_new;
  return w;
}

// acc[c] (c < NV) are the [BM, kDimChunk] chunks of the output rows; m and l the running row max and sum.
// load_v(c) returns chunk c of the value tile matching the score columns.
template <class T, int NV, class Block, class S, class Vec, class Acc, class LoadV>
TILE_DEVICE void online_softmax_step(Block& blk, const S& s, Vec& m, Vec& l, Acc (&acc)[NV], LoadV load_v) {
  (void)blk;
  const auto w = online_softmax_weights(s, m, l);
  const auto p_in = cast<T>(w.p);
  for (int c = 0; c < NV; ++c) {
    acc[c] = acc[c] * w.rescale;
    mma(acc[c], p_in, load_v(c));
  }
}

// The same with the output rows in one tile o: accumulate(o, p cast to T) adds p @ v.
template <class T, class S, class Vec, class O, class Accumulate>
TILE_DEVICE void online_softmax_step(const S& s, Vec& m, Vec& l, O& o, Accumulate&& accumulate) {
  const auto w = online_softmax_weights(s, m, l);
  o = o * w.rescale;
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
