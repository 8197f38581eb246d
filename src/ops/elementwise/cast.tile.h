// Dtype conversion as tile kernels, going through fp32 (exact for f16, bf16 and fp8 inputs; f32 -> 16-bit
// rounds to nearest even).
// Cast: each block converts one ROWS x COLS tile of the [rows, n] views.
// CastStack: the same over [B, H, rows, n] views of any strides (attention's heads, q strided inside a
// [B, S, H, D] buffer); block (t, h, b) converts tile t of matrix [b][h].
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class From, class To, int ROWS, int COLS, int THREADS>
struct Cast {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const From> x;
    tile::View2<To> y;
    int64_t col_blocks;  // column tiles per row tile
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const auto [r0, c0] = tile::tile_origin<ROWS, COLS>(blk, p.col_blocks);
    store(blk, p.y, {r0, c0}, cast<To>(cast<float>(load<ROWS, COLS>(blk, p.x, {r0, c0}))));
  }
};

template <class From, class To, int ROWS, int COLS, int THREADS>
struct CastStack {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View4<const From> x;
    tile::View4<To> y;
    int64_t col_blocks;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const auto [r0, c0] = tile::tile_origin<ROWS, COLS>(blk, p.col_blocks);
    const int64_t h = blk.bid(1), b = blk.bid(2);
    store(blk, p.y[b][h], {r0, c0}, cast<To>(cast<float>(load<ROWS, COLS>(blk, p.x[b][h], {r0, c0}))));
  }
};

}  // namespace tessera::ops::kernels
