// Launchers of the activation family, compiled once per tile backend (host.cpp and cuda.cu include this file).
// Tile configurations (sweeps on an H200: bench/results/2026-11-23-h200-membound):
//   - a wide tile, 1 x 2048 over 128 threads (two 16-byte accesses per operand and thread for 16-bit types,
//     four for f32, all in flight at once), for gelu on rows wider than 256 and on contiguous f32 tensors
//     (seen as one long row). gelu also asks for 8 blocks per multiprocessor (63 registers): 52% vs 48% of
//     copy bandwidth. 1 x 2048 over 256 threads ran silu_and_mul at 53%, this 73%;
//   - gelu on contiguous 16-bit tensors: 1 x 4096 over 128 threads (four 16-byte loads a thread), 8 blocks
//     per multiprocessor: 97% of copy bandwidth at 16384 x 8192 and 4096 x 4096, against 90% for 1 x 2048
//     (bench/results/2026-11-26-h200-session25);
//   - silu_and_mul (two loads, little math) on rows wider than 256: 1 x 1024 over 128 threads, at least 12
//     blocks per multiprocessor: 84% vs 77% of copy bandwidth for 1 x 2048 (bench/probes/membound_variants.cu,
//     bench/results/2026-11-24-h200-session13);
//   - a narrow tile, 8 x 256 over 256 threads: rows of at most 256 elements that cannot be flattened.
#pragma once
#include "ops/activation/args.h"
#include "ops/activation/gelu.tile.h"
#include "ops/activation/silu_and_mul.tile.h"
#include "ops/common/views.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
constexpr int64_t kNarrowCols = 256;

// The grid of an elementwise map over a [rows, cols] view by ROWS x COLS tiles, flattened to one axis.
template <int ROWS, int COLS>
tile::Grid map_grid(int64_t rows, int64_t cols, int64_t& col_blocks) {
  col_blocks = (cols + COLS - 1) / COLS;
  return {(rows + ROWS - 1) / ROWS * col_blocks};
}

template <class T, int ROWS, int COLS, int THREADS, int MIN_BLOCKS = 1>
void launch_gelu(const tile::View2<const T>& x, const tile::View2<T>& y, GeluApprox approx, const dispatch::Options& opt) {
  auto run = [&]<bool TANH>() {
    using K = tile::MinBlocksPerSm<kernels::Gelu<T, ROWS, COLS, THREADS, TANH>, MIN_BLOCKS>;
    typename K::Params p{};
    p.x = x;
    p.y = y;
    const auto grid = map_grid<ROWS, COLS>(x.extent[0], x.extent[1], p.col_blocks);
    tile::active::launch<K>(grid, p, opt.stream);
  };
  if (approx == GeluApprox::tanh) run.template operator()<true>();
  else run.template operator()<false>();
}

template <class T, int ROWS, int COLS, int THREADS, int MIN_BLOCKS = 1>
void launch_silu_and_mul(const SiluAndMulArgs& a, const dispatch::Options& opt) {
  using K = tile::MinBlocksPerSm<kernels::SiluAndMul<T, ROWS, COLS, THREADS>, MIN_BLOCKS>;
  typename K::Params p{};
  const auto x = as_rows<const T>(a.x);
  const int64_t n = a.y.size(-1);
  p.gate = x;
  p.gate.extent[1] = n;
  p.up = p.gate;
  p.up.data = x.data + n * x.stride[1];
  p.y = as_rows<T>(a.y);
  const auto grid = map_grid<ROWS, COLS>(p.y.extent[0], n, p.col_blocks);
  tile::active::launch<K>(grid, p, opt.stream);
}
}  // namespace

void gelu(const GeluArgs& a, const dispatch::Options& opt) {
  visit_float_dtype(a.x.dtype(), [&](auto t) {
    using T = decltype(t);
    if (a.x.is_contiguous() && a.y.is_contiguous()) {
      // Any contiguous tensor is one long row: no tile is wasted on short rows.
      const Shape flat{1, a.x.numel()};
      const auto x = as_rows<const T>(a.x.reshape(flat));
      const auto y = as_rows<T>(a.y.reshape(flat));
      if constexpr (sizeof(T) == 2) launch_gelu<T, 1, 4096, 128, 8>(x, y, a.approx, opt);
      else launch_gelu<T, 1, 2048, 128, 8>(x, y, a.approx, opt);
    } else if (a.x.size(-1) > kNarrowCols) {
      launch_gelu<T, 1, 2048, 128, 8>(as_rows<const T>(a.x), as_rows<T>(a.y), a.approx, opt);
    } else {
      launch_gelu<T, 8, 256, 256>(as_rows<const T>(a.x), as_rows<T>(a.y), a.approx, opt);
    }
  });
}

void silu_and_mul(const SiluAndMulArgs& a, const dispatch::Options& opt) {
  visit_float_dtype(a.x.dtype(), [&](auto t) {
    using T = decltype(t);
    if (a.y.size(-1) > kNarrowCols) launch_silu_and_mul<T, 1, 1024, 128, 12>(a, opt);
    else launch_silu_and_mul<T, 8, 256, 256>(a, opt);
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
