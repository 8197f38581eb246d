// Widens [B, H, S, D] fp8 tensors to the attention kernels' 16-bit type, exactly (every e4m3 value is an f16
// and a bf16 value): the staged kernels read 16-bit tiles, so fmha_fp8 on the GPU widens q, k and v into
// scratch first. Each block converts ROWS rows of one head, DC >= D columns (the rest masked).
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class From, class To, int ROWS, int DC, int THREADS>
struct WidenHeads {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View4<const From> x;
    tile::View4<To> y;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r0 = blk.bid(0) * ROWS, h = blk.bid(1), b = blk.bid(2);
    store(blk, p.y[b][h], {r0, 0}, cast<To>(load<ROWS, DC>(blk, p.x[b][h], {r0, 0})));
  }
};

}  // namespace tessera::ops::kernels
