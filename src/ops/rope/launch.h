// Launchers of the rope family, compiled once per tile backend (host.cpp and cuda.cu include this file).
// Many tokens: 32 heads of one token per block of 64 threads, rotary halves in steps of 64 columns (one
// step for head_dim 128, two for 256). Each thread holds four 8-element chunks of each half, all of the same
// columns: the cos/sin of its 8 angles are computed once for 4 heads (with 8 heads per block the sin/cos
// work per element was 4x larger and rope ran at 26% of copy bandwidth on an H200, 45% with 32). At least 8
// blocks per multiprocessor (128 registers instead of 198: 512 threads resident instead of 320): 61%.
// Fewer than a wave of such blocks (decode steps): 8 heads a block.
#pragma once
#include "ops/common/views.h"
#include "ops/rope/args.h"
#include "ops/rope/rotary.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
template <class T, int HEADS, int HALF, int THREADS>
void launch_rope(const RopeArgs& a, const dispatch::Options& opt) {
  using K = tile::MinBlocksPerSm<kernels::Rope<T, HEADS, HALF, THREADS>, 8>;
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
    if (rope_in_8_head_blocks(a.x.size(0), a.x.size(1))) launch_rope<decltype(t), 8, 64, 64>(a, opt);
    else launch_rope<decltype(t), 32, 64, 64>(a, opt);
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
