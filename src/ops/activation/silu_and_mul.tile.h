// SiLU-and-multiply (the gated MLP activation) as a tile kernel: each block maps one ROWS x COLS tile.
//
//   y[r, c] = silu(gate[r, c]) * up[r, c],   silu(g) = g * sigmoid(g)
//
// gate and up are the two halves of x's last dim, seen as two [rows, n] views. The grid is one-dimensional,
// as in gelu.tile.h.
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class T, int ROWS, int COLS, int THREADS>
struct SiluAndMul {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const T> gate, up;
    tile::View2<T> y;
    int64_t col_blocks;  // column tiles per row tile
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const auto [r0, c0] = tile::tile_origin<ROWS, COLS>(blk, p.col_blocks);
    // Edge tiles out of line (tile::ColdEdges): with more blocks resident, more loads in flight.
    const auto g = cast<float>(load<ROWS, COLS>(blk, p.gate, {r0, c0}, 0.f, tile::cold_edges));
    const auto u = cast<float>(load<ROWS, COLS>(blk, p.up, {r0, c0}, 0.f, tile::cold_edges));
    store(blk, p.y, {r0, c0}, cast<T>(g * sigmoid(g) * u), tile::cold_edges);
  }
};

}  // namespace tessera::ops::kernels
