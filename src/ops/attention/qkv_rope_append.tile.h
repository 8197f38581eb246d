// A decode step's attention input for one token in one streaming kernel: the fused q/k/v projection, RoPE on q
// and k, and k and v appended to the KV cache, where the matmul and rope_kv_cache_append took two launches.
//
// The projection is the few-rows matmul's (matmul_rows.tile.h): weight rows streamed BI x BK at a time, DEPTH
// tiles asked for before any is used, multiplied by the activation row on the CUDA cores. What is new is which
// rows a block owns. RoPE rotates pairs of features of a head: (j, j + r/2) for the neox layout, (2j, 2j + 1)
// for the interleaved one. A block owns BI pairs of one head, so both features of each pair are its own and
// the rotation is elementwise in the epilogue:
//
//   lo, hi  = the weight rows of the first and of the second features of pairs j0 .. j0+BI of head h
//   for each k0, DEPTH tiles at a time:   x_lo += chunk_sums(lo[.., k0 ..] * a[k0 ..]);  x_hi likewise
//   x_lo, x_hi = row_sum(x_lo) + bias, row_sum(x_hi) + bias        -- fp32, never rounded before the rotation
//   q and k heads:  angle = position * inv_freq[j0 ..]
//                   (x_lo, x_hi) = (x_lo cos - x_hi sin, x_hi cos + x_lo sin)
//   qkv[h's pairs] = (x_lo, x_hi);  k and v heads also: cache[slot][h's pairs] = (x_lo, x_hi)
//
// The sums run as chunk sums (as in the SiLU-and-mul kernel, matmul_rows_glu.tile.h: 5 blocks a multiprocessor).
// v heads are cut in pairs the same way and not rotated. Every feature of every head is rotated (rotary_dim =
// head_dim; the launcher sends other calls to the two ops). slot = slots[0]: negative or past the cache, the
// token is not cached. Edges: tiles past K read zeros (cold path), as the few-rows matmul's. With
// Options::weights_settled the first DEPTH tiles are asked for before the wait for the kernel before this one
// (tile/group_stream.h).
#pragma once
#include "ops/rope/rope.tile.h"
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class T, int BI, int BK, int THREADS, int DEPTH>
struct QkvRopeKvCacheAppend {
  static_assert(DEPTH >= 1 && DEPTH <= 8, "few rows: 1 to 8 tiles of each in flight");
  static constexpr int threads = THREADS, bi = BI;
  struct Params {
    tile::View2<const T> a;              // [1, K]: the activation row
    tile::View2<const T> w;              // [(Hq + 2 Hkv) D, K]: the q rows, the k rows, the v rows
    const T* bias;                       // [(Hq + 2 Hkv) D], or null
    T* qkv;                              // [(Hq + 2 Hkv) D]: the token's row of the projection
    tile::View4<T> k_pages, v_pages;     // [num_pages, page_size, Hkv, D]
    tile::View1<const int64_t> slots;    // [1]
    Rotary rotary;                       // rotary == D
    int64_t q_heads, kv_heads, head_dim;
    bool weights_settled;                // w was not written by the kernel before (Options::weights_settled)
  };
  static constexpr bool waits_for_predecessor = true;  // after the first weight tiles (group_stream.h)

  // Features first, first + step, ... (count of them) of the head at `head` (features `unit` elements apart), as a
  // count x 1 column.
  template <class U>
  TILE_DEVICE static tile::View2<U> pair_features(U* head, int64_t first, int64_t count, int64_t step, int64_t unit = 1) {
    return {head + first * unit, {count, 1}, {step * unit, 1}};
  }

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    // 32-bit divisions (a 64-bit one is a long subroutine, and its registers made this kernel spill): the grid
    // has fewer than 2^31 blocks, and the launcher sends caches of more than 2^31 slots to the two ops.
    const int32_t D = int32_t(p.head_dim), half = D / 2, blocks_per_head = half / BI, block = int32_t(blk.bid(0));
    const int32_t h = block / blocks_per_head, j0 = (block - h * blocks_per_head) * BI;
    const int64_t K = p.a.extent[1];
    // Pair j's features: (j, j + half) or (2j, 2j + 1).
    const int64_t second = p.rotary.interleaved ? 1 : half, step = p.rotary.interleaved ? 2 : 1;
    const tile::View2<const T> head_rows = p.w.window(int64_t(h) * D, 0, D, K);
    tile::View2<const T> lo = head_rows, hi = head_rows;
    lo.extent[0] = hi.extent[0] = half;
    lo.stride[0] = hi.stride[0] = step * head_rows.stride[0];
    hi.data += second * head_rows.stride[0];

    // Each weight byte is read once a call (read_once: it passes through L2 without pushing out what is read again).
    const auto weight_tile = [&](const tile::View2<const T>& w, int64_t k) {
      return load<BI, BK>(blk, w, {j0, k}, 0.f, tile::cold_edges, tile::read_once);
    };
    using W = decltype(weight_tile(lo, 0));
    W wl[DEPTH], wh[DEPTH];
    const auto ask = [&](int64_t from) {
      TILE_UNROLL(8)
      for (int d = 0; d < DEPTH; ++d) {
        wl[d] = weight_tile(lo, from + d * BK);
        wh[d] = weight_tile(hi, from + d * BK);
      }
    };
    tile::GroupStream groups(K, int64_t(DEPTH) * BK);
    groups.start(blk, p.weights_settled, ask);

    // What the epilogue reads, asked for before the loop, so that its latency passes with the weights'
    // instead of adding to the end of every block (the math on it waits for the loop's end).
    const int64_t kv_head = h - p.q_heads;  // k heads: [0, Hkv), v heads: [Hkv, 2 Hkv)
    const int64_t slot = kv_head >= 0 ? p.slots(0) : -1;
    const float position = p.rotary.position(0);
    using Sums = decltype(row_sum(zeros<float, BI, BK>(blk)));  // BI x 1: pairs j0 .. j0 + BI
    const Sums like{};
    const tile::View2<const float> freq = {p.rotary.inv_freq.data, {half, 1}, {p.rotary.inv_freq.stride[1], 1}};
    const auto inv_freq = load_like(blk, like, freq, {j0, 0});
    auto bias_lo = full_like(like, 0.f), bias_hi = full_like(like, 0.f);
    if (p.bias != nullptr) {
      bias_lo = cast<float>(load_like(blk, like, pair_features(p.bias + int64_t(h) * D, 0, half, step), {j0, 0}));
      bias_hi = cast<float>(load_like(blk, like, pair_features(p.bias + int64_t(h) * D, second, half, step), {j0, 0}));
    }

    auto x_lo = chunk_sums(zeros<float, BI, BK>(blk));
    auto x_hi = chunk_sums(zeros<float, BI, BK>(blk));
    const auto use = [&](int64_t from) {
      TILE_UNROLL(8)
      for (int d = 0; d < DEPTH; ++d) {
        const auto x = cast<float>(load<1, BK>(blk, p.a, {0, from + d * BK}));
        x_lo = x_lo + chunk_sums(cast<float>(wl[d]) * x);
        x_hi = x_hi + chunk_sums(cast<float>(wh[d]) * x);
      }
    };
    for (int64_t k0 = groups.run(ask, use); k0 < K; k0 += BK) {
      const auto x = cast<float>(load<1, BK>(blk, p.a, {0, k0}));
      x_lo = x_lo + chunk_sums(cast<float>(weight_tile(lo, k0)) * x);
      x_hi = x_hi + chunk_sums(cast<float>(weight_tile(hi, k0)) * x);
    }
    auto y_lo = row_sum(x_lo) + bias_lo, y_hi = row_sum(x_hi) + bias_hi;
    if (kv_head < p.kv_heads) {  // q and k heads
      const auto [c, s] = cos_sin(inv_freq * position);
      const auto rotated_lo = y_lo * c - y_hi * s;
      y_hi = y_hi * c + y_lo * s;
      y_lo = rotated_lo;
    }
    const auto out_lo = cast<T>(y_lo), out_hi = cast<T>(y_hi);
    store(blk, pair_features(p.qkv + int64_t(h) * D, 0, half, step), {j0, 0}, out_lo);
    store(blk, pair_features(p.qkv + int64_t(h) * D, second, half, step), {j0, 0}, out_hi);
    if (kv_head < 0) return;
    const tile::View4<T>& pages = kv_head < p.kv_heads ? p.k_pages : p.v_pages;
    const int64_t page_size = pages.extent[1];
    if (slot < 0 || slot >= pages.extent[0] * page_size) return;  // the same for the whole block
    const int32_t page = int32_t(slot) / int32_t(page_size), offset = int32_t(slot) - page * int32_t(page_size);
    T* cached = &pages(page, offset, kv_head - (kv_head < p.kv_heads ? 0 : p.kv_heads), 0);
    store(blk, pair_features(cached, 0, half, step, pages.stride[3]), {j0, 0}, out_lo);
    store(blk, pair_features(cached, second, half, step, pages.stride[3]), {j0, 0}, out_hi);
  }
};

}  // namespace tessera::ops::kernels
