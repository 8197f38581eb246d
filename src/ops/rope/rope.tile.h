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

template <class T, int HEADS, int HALF, int THREADS>
struct Rope {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View3<const T> x;             // [tokens, heads, head_dim], last dim unit-stride
    tile::View3<T> y;
    tile::View1<const int32_t> pos32;   // [tokens], one of the two
    tile::View1<const int64_t> pos64;
    tile::View2<const float> inv_freq;  // [1, rotary / 2]
    int64_t rotary;
    bool pos_i64, interleaved, copy_rest;
  };

  // Columns first, first + step, ... (count of them) of every row of v.
  template <class U>
  TILE_DEVICE static tile::View2<U> columns(tile::View2<U> v, int64_t first, int64_t count, int64_t step) {
    v.data += first * v.stride[1];
    v.extent[1] = count;
    v.stride[1] *= step;
    return v;
  }

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t t = blk.bid(0), h0 = blk.bid(1) * HEADS;
    const float pos = float(p.pos_i64 ? p.pos64(t) : int64_t(p.pos32(t)));
    const tile::View2<const T> x = p.x[t];
    const tile::View2<T> y = p.y[t];
    const int64_t half = p.rotary / 2;
    const int64_t first2 = p.interleaved ? 1 : half, step = p.interleaved ? 2 : 1;
    const auto x1 = columns(x, 0, half, step), x2 = columns(x, first2, half, step);
    const auto y1 = columns(y, 0, half, step), y2 = columns(y, first2, half, step);
    for (int64_t c0 = 0; c0 < half; c0 += HALF) {
      const auto angle = load<1, HALF>(blk, p.inv_freq, {0, c0}) * pos;
      const auto c = cos(angle), s = sin(angle);
      const auto a = cast<float>(load<HEADS, HALF>(blk, x1, {h0, c0}));
      const auto b = cast<float>(load<HEADS, HALF>(blk, x2, {h0, c0}));
      store(blk, y1, {h0, c0}, cast<T>(a * c - b * s));
      store(blk, y2, {h0, c0}, cast<T>(b * c + a * s));
    }
    if (p.copy_rest)
      for (int64_t c0 = p.rotary; c0 < x.extent[1]; c0 += 2 * HALF)
        store(blk, y, {h0, c0}, load<HEADS, 2 * HALF>(blk, x, {h0, c0}));
  }
};

}  // namespace tessera::ops::kernels
