// Launchers of the norm family, compiled once per tile backend (host.cpp and cuda.cu include this file).
// Tile configurations: rows up to 1024 wide go four to a block of 128 threads; wider rows one to a block of
// 256 threads, 8192 columns per tile. Both give every thread four 16-byte loads in flight.
#pragma once
#include "ops/common/views.h"
#include "ops/norm/args.h"
#include "ops/norm/layer_norm.tile.h"
#include "ops/norm/rms_norm.tile.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
template <class T, int ROWS, int COLS, int THREADS>
void launch_rms_norm(const RmsNormArgs& a, const dispatch::Options& opt) {
  using K = kernels::RmsNorm<T, ROWS, COLS, THREADS>;
  typename K::Params p{};
  p.x = as_rows<const T>(a.x);
  p.weight = as_rows<const T>(a.weight.reshape({1, a.weight.numel()}));
  p.y = as_rows<T>(a.y);
  p.eps = a.eps;
  p.has_residual = a.has_residual();
  if (p.has_residual) {
    p.residual = as_rows<const T>(a.residual);
    p.sum_out = as_rows<T>(a.residual_out);
  }
  const int64_t rows = p.x.extent[0];
  tile::active::launch<K>({(rows + ROWS - 1) / ROWS}, p, opt.stream);
}

template <class T, int ROWS, int COLS, int THREADS>
void launch_layer_norm(const LayerNormArgs& a, const dispatch::Options& opt) {
  using K = kernels::LayerNorm<T, ROWS, COLS, THREADS>;
  typename K::Params p{};
  p.x = as_rows<const T>(a.x);
  p.weight = as_rows<const T>(a.weight.reshape({1, a.weight.numel()}));
  p.bias = as_rows<const T>(a.bias.reshape({1, a.bias.numel()}));
  p.y = as_rows<T>(a.y);
  p.eps = a.eps;
  const int64_t rows = p.x.extent[0];
  tile::active::launch<K>({(rows + ROWS - 1) / ROWS}, p, opt.stream);
}
}  // namespace

void rms_norm(const RmsNormArgs& a, const dispatch::Options& opt) {
  visit_float_dtype(a.x.dtype(), [&](auto t) {
    using T = decltype(t);
    if (a.x.size(-1) <= 1024) launch_rms_norm<T, 4, 1024, 128>(a, opt);
    else launch_rms_norm<T, 1, 8192, 256>(a, opt);
  });
}

void layer_norm(const LayerNormArgs& a, const dispatch::Options& opt) {
  visit_float_dtype(a.x.dtype(), [&](auto t) {
    using T = decltype(t);
    if (a.x.size(-1) <= 1024) launch_layer_norm<T, 4, 1024, 128>(a, opt);
    else launch_layer_norm<T, 1, 8192, 256>(a, opt);
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
