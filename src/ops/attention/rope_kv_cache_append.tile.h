// RoPE and KV-cache append as one tile kernel: a decode step's two smallest launches as one. Each block takes
// HEADS heads of one token, in three groups of blocks:
//
//   q heads:  q = rope(q)                                   (in place)
//   k heads:  k = rope(k); k_cache[slot] = k                (the rotated values written to both)
//   v heads:  v_cache[slot] = v
//
// with slot = slots[token] (negative or past the cache: the token is not cached). rope is the rope kernel's
// rotation (ops/rope/rope.tile.h); features past the rotary ones are copied to the cache unchanged.
#pragma once
#include "ops/rope/rope.tile.h"
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class T, int HEADS, int HALF, int THREADS>
struct RopeKvCacheAppend {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View3<T> q, k;                 // [T, Hq, D], [T, Hkv, D]: rotated in place
    tile::View3<const T> v;              // [T, Hkv, Dv]
    tile::View4<T> k_pages, v_pages;     // [num_pages, page_size, Hkv, D]
    tile::View1<const int64_t> slots;    // [T]
    Rotary rotary;
    int64_t q_blocks, k_blocks;          // blocks of HEADS heads in the q and k groups
  };

  // Slot s's rows [Hkv, D] of a cache, or an empty view (written nowhere) when s holds no slot.
  TILE_DEVICE static tile::View2<T> slot_rows(const tile::View4<T>& pages, int64_t s) {
    const int64_t page_size = pages.extent[1];
    if (s < 0 || s >= pages.extent[0] * page_size) return {};
    return pages[s / page_size][s % page_size];
  }

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t t = blk.bid(0), group = blk.bid(1);
    const int64_t slot = p.slots(t);
    if (group < p.q_blocks + p.k_blocks) {
      // One rotation for both groups (the code is the kernel's largest part; a decode step pays for its size).
      const bool is_q = group < p.q_blocks;
      const tile::View2<T> x = is_q ? p.q[t] : p.k[t];
      const tile::View2<T> cached = is_q ? tile::View2<T>{} : slot_rows(p.k_pages, slot);
      const int64_t h0 = (is_q ? group : group - p.q_blocks) * HEADS;
      rotate_heads<HEADS, HALF>(blk, p.rotary, p.rotary.position(t), x, x, cached, h0);
      copy_head_columns<HEADS, 2 * HALF>(blk, x, cached, h0, p.rotary.rotary);
      return;
    }
    const int64_t h0 = (group - p.q_blocks - p.k_blocks) * HEADS;
    copy_head_columns<HEADS, 2 * HALF>(blk, p.v[t], slot_rows(p.v_pages, slot), h0, 0);
  }
};

}  // namespace tessera::ops::kernels
