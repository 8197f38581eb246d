// Launchers of the sampling family, compiled once per tile backend (host.cpp and cuda.cu include this file).
// argmax: one row per block of 1024 threads, 32768 columns a tile (32 entries a thread), so a 128k-entry
// vocabulary row is four tiles: a decode step's logits rows are few and long, and the bytes in flight per
// block, not the number of blocks, set the time.
#pragma once
#include "ops/common/views.h"
#include "ops/sampling/args.h"
#include "ops/sampling/argmax.tile.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
template <class T, int COLS, int THREADS>
void launch_argmax(const ArgmaxArgs& a, const dispatch::Options& opt) {
  using K = kernels::RowArgmax<T, COLS, THREADS>;
  typename K::Params p{};
  p.x = as_rows<const T>(a.x);
  p.out.data = static_cast<int32_t*>(a.out.data());
  p.out.extent[0] = p.x.extent[0];
  p.out.extent[1] = 1;
  p.out.stride[0] = 1;
  p.out.stride[1] = 1;
  tile::active::launch<K>({p.x.extent[0]}, p, opt.stream);
}
}  // namespace

void argmax(const ArgmaxArgs& a, const dispatch::Options& opt) {
  visit_float_dtype(a.x.dtype(), [&](auto t) { launch_argmax<decltype(t), 32768, 1024>(a, opt); });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
