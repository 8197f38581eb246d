// Launchers of the rope family, compiled once per tile backend (host.cpp and cuda.cu include this file).
// Many tokens: the heads of one token per block, rotary halves in steps of 64 columns (one step for head_dim
// 128, two for 256). A thread holds 8-element chunks of each half, all of the same columns, so the cos/sin of its
// 8 angles are computed once for all of its heads (with 8 heads per block of 64 threads the sin/cos work per
// element was 4x larger and rope ran at 26% of copy bandwidth on an H200, 45% with 32, session 25).
// 16-bit tokens of 64 heads or more: 64 heads a block of 256 threads, at least 4 blocks a multiprocessor (two
// heads a thread); fewer heads: 32 heads a block of 128 threads, 8 blocks. Both cap registers at 64, so a
// multiprocessor holds 1024 threads; the form before, 32 heads a block of 64 threads at 8 blocks (four heads a
// thread, 128 registers, 512 threads), ran 16384 tokens x 64 heads at 90.1-90.8% of copy bandwidth against
// 92.7-92.8% and 4096 x 32 heads at 88.9-89.3% against 90.1-92.8% (H200, session 58,
// bench/probes/row_op_launch_shapes.cu). fp32 tokens keep that form (the new ones spill 64 bytes for them).
// Fewer than a wave of such blocks (decode steps): 8 heads a block of 64 threads.
#pragma once
#include "ops/common/views.h"
#include "ops/rope/args.h"
#include "ops/rope/rotary.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
template <class T, int HEADS, int HALF, int THREADS, int MIN_BLOCKS>
void launch_rope(const RopeArgs& a, const dispatch::Options& opt) {
  using K = tile::MinBlocksPerSm<kernels::Rope<T, HEADS, HALF, THREADS>, MIN_BLOCKS>;
  typename K::Params p{};
  p.x = as_view<const T, 3>(a.x);
  p.y = as_view<T, 3>(a.y);
  p.rotary = rotary_of(a.positions, a.inv_freq, a.layout, a.rotary_dim);
  p.copy_rest = a.rotary_dim < a.x.size(2) && !a.in_place();
  const int64_t tokens = a.x.size(0), heads = a.x.size(1);
  tile::active::launch<K>({tokens, (heads + HEADS - 1) / HEADS}, p, opt.stream);
}
}  // namespace

void rope(const RopeArgs& a, const dispatch::Options& opt) {
  visit_float_dtype(a.x.dtype(), [&](auto t) {
    using T = decltype(t);
    if (rope_in_8_head_blocks(a.x.size(0), a.x.size(1))) return launch_rope<T, 8, 64, 64, 8>(a, opt);
    if constexpr (sizeof(T) == 4) {
      launch_rope<T, 32, 64, 64, 8>(a, opt);
    } else {
      if (a.x.size(1) >= 64) launch_rope<T, 64, 64, 256, 4>(a, opt);
      else launch_rope<T, 32, 64, 128, 8>(a, opt);
    }
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
