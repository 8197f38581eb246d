// KV-cache append as a tile kernel: each block moves ROWS tokens of one KV head into their slots.
//
//   slot = slots[token]                      (-1 or any negative: skipped)
//   k_pages row slot (page slot / page_size, offset slot % page_size) = k row (token, head), chunk by chunk
//
// Both sides are row gathers/scatters (tessera/tile/host/gather.h): the token rows of a [T, Hkv, D] tensor and
// the slot rows of the head's [num_pages, page_size, D] cache view.
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class T, int ROWS, int COLS, int THREADS>
struct KvCacheAppend {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View3<const T> k, v;             // [T, Hkv, D]
    tile::View4<T> k_pages, v_pages;       // [Hkv, num_pages, page_size, D] (head-major views)
    tile::View3<const int64_t> slots;      // [T, 1, 1]
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t t0 = blk.bid(0) * ROWS, h = blk.bid(1), heads = p.k.extent[1];
    const auto token = arange<ROWS, 1>(blk, 0) + int(t0);
    const auto slot = cast<int>(gather_rows<1>(blk, p.slots, token, 0, -1.f));
    const auto source_row = token * int(heads) + int(h);  // row (token, h) of [T, Hkv]
    const auto valid_source = where(token < int(p.k.extent[0]), source_row, -1);
    // k and v are both read before either is written: one memory round trip per COLS columns, not two
    // (a write might alias the next read, so the compiler cannot hoist a read above it).
    const int64_t width = p.k.extent[2] > p.v.extent[2] ? p.k.extent[2] : p.v.extent[2];
    for (int64_t c0 = 0; c0 < width; c0 += COLS) {  // columns past a view's width are not read or written
      const auto k = gather_rows<COLS>(blk, p.k, valid_source, c0);
      const auto v = gather_rows<COLS>(blk, p.v, valid_source, c0);
      scatter_rows(blk, p.k_pages[h], slot, c0, k);
      scatter_rows(blk, p.v_pages[h], slot, c0, v);
    }
  }
};

}  // namespace tessera::ops::kernels
