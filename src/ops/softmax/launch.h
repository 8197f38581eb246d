// Launchers of the softmax family, compiled once per tile backend (host.cpp and cuda.cu include this file).
// Tile configurations, as for the norms: rows up to 1024 wide go four to a block of 128 threads; wider rows
// one to a block of 256 threads, 8192 columns per tile (rows beyond that take the online two-pass path).
#pragma once
#include <cmath>

#include "ops/common/views.h"
#include "ops/softmax/args.h"
#include "ops/softmax/softmax.tile.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
template <class T, int ROWS, int COLS, int THREADS>
void launch_softmax(const SoftmaxArgs& a, const dispatch::Options& opt) {
  using K = kernels::Softmax<T, ROWS, COLS, THREADS>;
  typename K::Params p{};
  p.x = as_rows<const T>(a.x);
  p.y = as_rows<T>(a.y);
  p.sign = a.scale < 0 ? -1.f : 1.f;
  p.k = float(std::fabs(double(a.scale)) * 1.4426950408889634);  // |scale| * log2(e)
  const int64_t rows = p.x.extent[0];
  tile::active::launch<K>({(rows + ROWS - 1) / ROWS}, p, opt.stream);
}
}  // namespace

void softmax(const SoftmaxArgs& a, const dispatch::Options& opt) {
  visit_float_dtype(a.x.dtype(), [&](auto t) {
    using T = decltype(t);
    if (a.x.size(-1) <= 1024) launch_softmax<T, 4, 1024, 128>(a, opt);
    else launch_softmax<T, 1, 8192, 256>(a, opt);
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
