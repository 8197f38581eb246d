// GELU as a tile kernel: each block maps one ROWS x COLS tile of the [rows, n] view.
//
//   erf form:  y = 0.5 x (1 + erf(x / sqrt(2)))                  = x Phi(x)
//   tanh form: y = 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) = x sigmoid(2 sqrt(2 / pi) (x + 0.044715 x^3))
//
// Both are computed in the right-hand forms: Phi (normal_cdf) and sigmoid cost a few instructions where erf and
// tanh cost tens, and this kernel is bound by its instructions, not its bytes, otherwise (session 13 measured
// the same kernel at 63% of copy with erf and 98-100% with x / 2). The forms are also exact for negative x,
// where 1 + erf and 1 + tanh cancel.
//
// TANH picks the form at compile time: with both forms in one kernel (a runtime flag), the erf form ran at 81%
// of copy bandwidth against 90% alone (bench/results/2026-11-26-h200-session25).
//
// The grid is one-dimensional: block b covers row tile b / col_blocks and column tile b % col_blocks (CUDA
// limits the second grid axis to 65535). Elements beyond the view's extents are padded on load and dropped
// on store. Each thread stores exactly the elements it loaded, so y may be x.
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class T, int ROWS, int COLS, int THREADS, bool TANH>
struct Gelu {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const T> x;
    tile::View2<T> y;
    int64_t col_blocks;  // column tiles per row tile
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const auto [r0, c0] = tile::tile_origin<ROWS, COLS>(blk, p.col_blocks);
    const auto x = cast<float>(load<ROWS, COLS>(blk, p.x, {r0, c0}));
    if constexpr (TANH) {
      store(blk, p.y, {r0, c0}, cast<T>(x * sigmoid(x * (1.5957691216057308f + 0.0713548162726f * (x * x)))));
    } else if constexpr (sizeof(T) == 2) {
      // A 16-bit y needs Phi only to a quarter of its ulp: two instructions an element fewer.
      store(blk, p.y, {r0, c0}, cast<T>(x * normal_cdf_coarse(x)));
    } else {
      store(blk, p.y, {r0, c0}, cast<T>(x * normal_cdf(x)));
    }
  }
};

}  // namespace tessera::ops::kernels
