// Prefill attention (FlashAttention-2 style) as tile kernels: each block owns BM query rows of one query head
// of one sequence and streams the keys in tiles of kKeyTile:
//
//   q = Q[q0 : q0 + BM]                          -- registers, laid out as the products' accumulators
//   for each key tile that some row of the block can see:
//     s   = logits(q @ k^T)                      -- mma_nt; head dim in kDimChunk chunks
//     s   = where(key visible, s, -inf)          -- past the end, causal, sliding window
//     online softmax step (online_softmax.tile.h): m, l, acc += p @ v
//   o = acc / l;  lse = (m + log2 l) ln 2
//
// The scores and the output rows accumulate in the tensor cores' fragment layout where BM allows
// (mma_accumulator: 64 rows, 16 a warp), and the query rows and the probabilities, in that same layout, are the
// products' A operands straight from registers; at 32 rows (head dims 256) all are plain tiles.
//
// Key tiles wholly before the window of the block's first row or after the causal limit of its last row are
// skipped. GQA: query head h reads KV head h / group. Fmha takes [B, H, S, D] tensors; FmhaVarlen packed
// [T, H, D] sequences delimited by cumulative lengths, read as scalars.
//
// Inputs of another type TI than the output's T (fp8 e4m3) are widened to T tile by tile as they arrive, and
// the products run in T; their scales are the logits' scale and the output's out_scale.
#pragma once
#include "ops/attention/online_softmax.tile.h"

namespace tessera::ops::kernels {

struct MaskParams {
  bool causal = false;
  int64_t window_left = -1;  // -1: unlimited
  Logits logits;
};

// An R x C tile of an input at `at`, widened to the products' type T where the input is narrower (fp8).
template <class T, int R, int C, class Block, class TI>
TILE_DEVICE auto load_as(Block& blk, const tile::View2<const TI>& view, tile::Coord at) {
  if constexpr (std::is_same_v<TI, T>) return load<R, C>(blk, view, at);
  else return cast<T>(load<R, C>(blk, view, at));
}
// The same laid out like `like` (an accumulator: the rows are then a product's A operand in registers).
template <class T, class Like, class Block, class TI>
TILE_DEVICE auto load_as_like(Block& blk, const Like& like, const tile::View2<const TI>& view, tile::Coord at) {
  if constexpr (std::is_same_v<TI, T>) return load_like(blk, like, view, at);
  else return cast<T>(load_like(blk, like, view, at));
}

// Attends query rows [q0, q0 + BM) of q [Sq, DQK] to k [Sk, DQK] / v [Sk, DV] (views of one head of one
// sequence; head dims up to DQK / DV, zero-padded), bottom-right aligned. Writes those rows of o [Sq, DV]
// and, when has_lse, of lse [Sq, 1].
template <class T, int BM, int DQK, int DV, class Block, class TI>
TILE_DEVICE void attend_query_tile(Block& blk, const tile::View2<const TI>& q, const tile::View2<const TI>& k,
                                   const tile::View2<const TI>& v, const tile::View2<T>& o, const tile::View2<float>& lse,
                                   bool has_lse, int64_t q0, const MaskParams& mask, float out_scale = 1.f) {
  constexpr int BN = kKeyTile, DC = kDimChunk, NQ = DQK / DC, NV = DV / DC;
  static_assert(DQK % DC == 0 && DV % DC == 0, "head dims are whole chunks");
  const int64_t Sq = q.extent[0], Sk = k.extent[0], offset = Sk - Sq;

  // The keys that any row of this block may see.
  int64_t k_begin = 0, k_end = Sk;
  if (mask.causal) k_end = q0 + BM + offset < Sk ? q0 + BM + offset : Sk;
  if (mask.window_left >= 0 && q0 + offset - mask.window_left > 0) k_begin = (q0 + offset - mask.window_left) / BN * BN;

  const auto chunk_like = mma_accumulator<BM, DC>(blk);
  decltype(load_as_like<T>(blk, chunk_like, q, {0, 0})) q_chunk[NQ];
  for (int c = 0; c < NQ; ++c) q_chunk[c] = load_as_like<T>(blk, chunk_like, q, {q0, int64_t(c) * DC});
  decltype(mma_accumulator<BM, DC>(blk)) acc[NV];
  for (int c = 0; c < NV; ++c) acc[c] = mma_accumulator<BM, DC>(blk);
  auto m = full_like(row_max(mma_accumulator<BM, BN>(blk)), -INFINITY);
  auto l = full_like(m, 0.f);
  // Each row's position in key coordinates, and each column's offset inside a key tile.
  const auto position = arange_like(mma_accumulator<BM, BN>(blk), 0) + int(q0 + offset);
  const auto column = arange_like(mma_accumulator<BM, BN>(blk), 1);

  for (int64_t k0 = k_begin; k0 < k_end; k0 += BN) {
    auto dots = mma_accumulator<BM, BN>(blk);
    for (int c = 0; c < NQ; ++c) mma_nt(dots, q_chunk[c], load_as<T, BN, DC>(blk, k, {k0, int64_t(c) * DC}));
    const auto key = column + int(k0);
    auto visible = key < int(Sk);
    if (mask.causal) visible = visible & (key <= position);
    if (mask.window_left >= 0) visible = visible & (key >= position - int(mask.window_left));
    auto s = mask.logits.scores(dots);
    s.x = where(visible, s.x, -INFINITY);
    online_softmax_step<T>(blk, s, m, l, acc, [&](int c) { return load_as<T, BN, DC>(blk, v, {k0, int64_t(c) * DC}); });
  }

  const auto inv_l = inverse_sum(l) * out_scale;
  for (int c = 0; c < NV; ++c) store(blk, o, {q0, int64_t(c) * DC}, cast<T>(acc[c] * inv_l));
  if (has_lse) store(blk, lse, {q0, 0}, log_sum_exp(m, l));
}

// Grid (ceil(Sq / BM), Hq, B). q [B, Hq, Sq, DQK], k [B, Hkv, Sk, DQK], v [B, Hkv, Sk, DV], o [B, Hq, Sq, DV],
// lse [B, Hq, Sq, 1].
template <class T, int BM, int DQK, int DV, int THREADS, class TI = T>
struct Fmha {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View4<const TI> q, k, v;
    tile::View4<T> o;
    tile::View4<float> lse;
    bool has_lse;
    int64_t group;  // query heads per KV head
    MaskParams mask;
    float out_scale = 1.f;  // fp8 inputs: v's scale
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t q0 = blk.bid(0) * BM, h = blk.bid(1), b = blk.bid(2);
    attend_query_tile<T, BM, DQK, DV>(blk, p.q[b][h], p.k[b][h / p.group], p.v[b][h / p.group], p.o[b][h],
                                      p.lse[b][h], p.has_lse, q0, p.mask, p.out_scale);
  }
};

// The first query row of the block at `index` of a sequence's ceil(rows / bm) query tiles, for the staged
// kernels (forward and dQ). Causal tiles run heaviest first (FlashAttention-3's longest-first order): a tile sees
// more keys the further down it is, and blocks start in grid order, so in query order the longest blocks
// started last and ran on alone at the end (at 1 x 16 x 16k the last tile's 128 key tiles).
TILE_DEVICE int64_t query_tile_row(int64_t index, int64_t rows, int64_t bm, bool causal) {
  return (causal ? (rows + bm - 1) / bm - 1 - index : index) * bm;
}

// The rows of sequence b in the packed tensors: queries [q_begin, q_end) of tq rows, keys [k_begin, k_end) of
// tk. Sequence b == batch (one past the last) owns the query rows past cu_q[batch] and no keys. Clamped into
// the tensors: whatever the (unchecked, on a GPU) cumulative lengths hold, no access leaves q, k, v, o or lse.
struct PackedSequence {
  int64_t q_begin, q_end, k_begin, k_end;
};
TILE_DEVICE PackedSequence packed_sequence(const tile::View1<const int32_t>& cu_q, const tile::View1<const int32_t>& cu_k,
                                           int64_t b, int64_t tq, int64_t tk) {
  const int64_t batch = cu_q.extent[0] - 1;
  auto clamp = [](int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : x > hi ? hi : x; };
  PackedSequence s;
  s.q_begin = clamp(cu_q(b < batch ? b : batch), 0, tq);
  s.q_end = b < batch ? clamp(cu_q(b + 1), s.q_begin, tq) : tq;
  s.k_begin = b < batch ? clamp(cu_k(b), 0, tk) : 0;
  s.k_end = b < batch ? clamp(cu_k(b + 1), s.k_begin, tk) : 0;
  return s;
}

// Grid (ceil(Tq / BM), Hq, B + 1). q [Hq, Tq, DQK], k [Hkv, Tk, DQK], v [Hkv, Tk, DV], o [Hq, Tq, DV],
// lse [Hq, Tq, 1] (head-major views of the packed tensors); cu_q, cu_k [B + 1]. The extra sequence B owns the
// rows past cu_q[B], which see no key: they are written as o = 0, lse = -inf.
template <class T, int BM, int DQK, int DV, int THREADS>
struct FmhaVarlen {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View3<const T> q, k, v;
    tile::View3<T> o;
    tile::View3<float> lse;
    tile::View1<const int32_t> cu_q, cu_k;
    bool has_lse;
    int64_t group;
    MaskParams mask;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t q0 = blk.bid(0) * BM, h = blk.bid(1);
    const auto [q_begin, q_end, k_begin, k_end] = packed_sequence(p.cu_q, p.cu_k, blk.bid(2), p.q.extent[1], p.k.extent[1]);
    if (q0 >= q_end - q_begin) return;
    const int64_t dqk = p.q.extent[2], dv = p.v.extent[2];
    attend_query_tile<T, BM, DQK, DV>(
        blk, p.q[h].window(q_begin, 0, q_end - q_begin, dqk), p.k[h / p.group].window(k_begin, 0, k_end - k_begin, dqk),
        p.v[h / p.group].window(k_begin, 0, k_end - k_begin, dv), p.o[h].window(q_begin, 0, q_end - q_begin, dv),
        p.lse[h].window(q_begin, 0, q_end - q_begin, 1), p.has_lse, q0, p.mask);
  }
};

}  // namespace tessera::ops::kernels
