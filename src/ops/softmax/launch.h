// Launchers of the softmax family, compiled once per tile backend (host.cpp and cuda.cu include this file).
// Tile configurations per row width, as for the norms (see ops/norm/launch.h): one-pass kernels for rows up
// to 1024 (four to a block of 128 threads), 4096 (one to a block of 128 threads, at least 4 blocks per
// multiprocessor) and 8192 (one to a block of 256 threads, at least 4 blocks per multiprocessor: 64
// registers, no spills, 66% vs 62% of copy bandwidth with 2); wider rows take the online two-pass kernel,
// 8192 columns per tile.
#pragma once
#include <cmath>

#include "ops/common/views.h"
#include "ops/softmax/args.h"
#include "ops/softmax/softmax.tile.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
template <class T, int ROWS, int COLS, int THREADS, bool ONE_PASS, int MIN_BLOCKS>
void launch_softmax(const SoftmaxArgs& a, const dispatch::Options& opt) {
  using K = tile::MinBlocksPerSm<kernels::Softmax<T, ROWS, COLS, THREADS, ONE_PASS>, MIN_BLOCKS>;
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
    const int64_t n = a.x.size(-1);
    if (n <= 1024) launch_softmax<T, 4, 1024, 128, true, 1>(a, opt);
    else if (n <= 4096) launch_softmax<T, 1, 4096, 128, true, 4>(a, opt);
    else if (n <= 8192) launch_softmax<T, 1, 8192, 256, true, 4>(a, opt);
    else launch_softmax<T, 1, 8192, 256, false, 1>(a, opt);
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
