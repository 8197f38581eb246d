// Rotary position embedding as a tile kernel: each block rotates HEADS heads of one token.
//
//   angle = position * inv_freq                 -- a 1 x HALF row, the same for every head
//   y1    = x1 * cos(angle) - x2 * sin(angle)   -- (x1, x2) are the pairs: the two halves of the rotary
//   y2    = x2 * cos(angle) + x1 * sin(angle)      features (neox) or their even and odd elements (interleaved)
//
// The pairs are read as two HEADS x HALF tiles of views onto the same memory: for neox the windows
// [0, r/2) and [r/2, r) of each head, for interleaved the columns 0, 2, 4 ... and 1, 3, 5 ... (a view of
// column stride 2). Rotary halves wider than HALF take several column steps. Features past rotary_dim are
// copied (skipped when y is x). Every element is read and written by the same thread of the same step, so
// y may be x.
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

// Where each token's angles come from: its position (one of the two position views) times inv_freq.
struct Rotary {
  tile::View1<const int32_t> pos32;   // [tokens], one of the two
  tile::View1<const int64_t> pos64;
  tile::View2<const float> inv_freq;  // [1, rotary / 2]
  int64_t rotary;                     // rotated features per head
  bool pos_i64, interleaved;

  TILE_HD float position(int64_t token) const { return float(pos_i64 ? pos64(token) : int64_t(pos32(token))); }
};

// Columns first, first + step, ... (count of them) of every row of v.
template <class V>
TILE_DEVICE V rotary_columns(V v, int64_t first, int64_t count, int64_t step) {
  v.data += first * v.stride[1];
  v.extent[1] = count;
  v.stride[1] *= step;
  return v;
}

// Rotates the rotary features of heads [h0, h0 + HEADS) of one token, x [heads, head_dim], into y and into
// also (an empty view: nowhere); y may be x.
template <int HEADS, int HALF, class Block, class X, class T>
TILE_DEVICE void rotate_heads(Block& blk, const Rotary& r, float pos, const X& x, const tile::View2<T>& y,
                              const tile::View2<T>& also, int64_t h0) {
  const int64_t half = r.rotary / 2;
  const int64_t first2 = r.interleaved ? 1 : half, step = r.interleaved ? 2 : 1;
  const auto x1 = rotary_columns(x, 0, half, step), x2 = rotary_columns(x, first2, half, step);
  const auto y1 = rotary_columns(y, 0, half, step), y2 = rotary_columns(y, first2, half, step);
  const auto z1 = rotary_columns(also, 0, half, step), z2 = rotary_columns(also, first2, half, step);
  for (int64_t c0 = 0; c0 < half; c0 += HALF) {
    const auto angle = load<1, HALF>(blk, r.inv_freq, {0, c0}) * pos;
    const auto [c, s] = cos_sin(angle);
    const auto a = cast<float>(load<HEADS, HALF>(blk, x1, {h0, c0}));
    const auto b = cast<float>(load<HEADS, HALF>(blk, x2, {h0, c0}));
    const auto ya = cast<T>(a * c - b * s);
    const auto yb = cast<T>(b * c + a * s);
    store(blk, y1, {h0, c0}, ya);
    store(blk, y2, {h0, c0}, yb);
    store(blk, z1, {h0, c0}, ya);
    store(blk, z2, {h0, c0}, yb);
  }
}

// Copies columns [from, y's width) of heads [h0, h0 + HEADS) of x into y, COLS at a time (nothing is read for
// an empty y).
template <int HEADS, int COLS, class Block, class X, class Y>
TILE_DEVICE void copy_head_columns(Block& blk, const X& x, const Y& y, int64_t h0, int64_t from) {
  for (int64_t c0 = from; c0 < y.extent[1]; c0 += COLS) store(blk, y, {h0, c0}, load<HEADS, COLS>(blk, x, {h0, c0}));
}

template <class T, int HEADS, int HALF, int THREADS>
struct Rope {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View3<const T> x;  // [tokens, heads, head_dim], last dim unit-stride
    tile::View3<T> y;
    Rotary rotary;
    bool copy_rest;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t t = blk.bid(0), h0 = blk.bid(1) * HEADS;
    rotate_heads<HEADS, HALF>(blk, p.rotary, p.rotary.position(t), p.x[t], p.y[t], tile::View2<T>{}, h0);
    if (p.copy_rest) copy_head_columns<HEADS, 2 * HALF>(blk, p.x[t], p.y[t], h0, p.rotary.rotary);
  }
};

}  // namespace tessera::ops::kernels
