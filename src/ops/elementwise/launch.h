// Launchers of the elementwise family, compiled once per tile backend (host.cpp and cuda.cu include this file).
// One tile configuration, 1 x 2048 with 256 threads (as the activation family's wide tile): the front-end
// only accepts tensors whose rows fold, and a contiguous tensor is seen as one long row.
#pragma once
#include "ops/common/views.h"
#include "ops/elementwise/add.tile.h"
#include "ops/elementwise/args.h"
#include "ops/elementwise/cast.tile.h"
#include "ops/elementwise/transpose.tile.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
constexpr int kRows = 1, kCols = 2048, kThreads = 256;

// A contiguous tensor as one long row, else its rows.
template <class T>
tile::View2<T> flat_rows(const Tensor& t) {
  return t.is_contiguous() ? as_rows<T>(t.reshape({1, t.numel()})) : as_rows<T>(t);
}

tile::Grid map_grid(int64_t rows, int64_t cols, int64_t& col_blocks) {
  col_blocks = (cols + kCols - 1) / kCols;
  return {(rows + kRows - 1) / kRows * col_blocks};
}
}  // namespace

void add(const AddArgs& a, const dispatch::Options& opt) {
  visit_float_dtype(a.y.dtype(), [&](auto t) {
    using T = decltype(t);
    using K = kernels::Add<T, kRows, kCols, kThreads>;
    typename K::Params p{};
    const bool flat = a.a.is_contiguous() && a.b.is_contiguous() && a.y.is_contiguous();
    p.a = flat ? flat_rows<const T>(a.a) : as_rows<const T>(a.a);
    p.b = flat ? flat_rows<const T>(a.b) : as_rows<const T>(a.b);
    p.y = flat ? flat_rows<T>(a.y) : as_rows<T>(a.y);
    const auto grid = map_grid(p.y.extent[0], p.y.extent[1], p.col_blocks);
    tile::active::launch<K>(grid, p, opt.stream);
  });
}

void cast(const CastArgs& a, const dispatch::Options& opt) {
  visit_float_dtype(a.x.dtype(), [&](auto from) {
    visit_float_dtype(a.y.dtype(), [&](auto to) {
      using From = decltype(from);
      using To = decltype(to);
      using K = kernels::Cast<From, To, kRows, kCols, kThreads>;
      typename K::Params p{};
      const bool flat = a.x.is_contiguous() && a.y.is_contiguous();
      p.x = flat ? flat_rows<const From>(a.x) : as_rows<const From>(a.x);
      p.y = flat ? flat_rows<To>(a.y) : as_rows<To>(a.y);
      const auto grid = map_grid(p.y.extent[0], p.y.extent[1], p.col_blocks);
      tile::active::launch<K>(grid, p, opt.stream);
    });
  });
}

// 32 x 32 tiles, 256 threads: four elements per thread.
void transpose(const TransposeArgs& a, const dispatch::Options& opt) {
  visit_float_dtype(a.x.dtype(), [&](auto t) {
    using T = decltype(t);
    constexpr int kTile = 32;
    using K = kernels::Transpose<T, kTile, 256>;
    typename K::Params p{};
    p.x = as_rows<const T>(a.x);
    p.y = as_rows<T>(a.y);
    p.col_blocks = (p.x.extent[1] + kTile - 1) / kTile;
    const tile::Grid grid{(p.x.extent[0] + kTile - 1) / kTile * p.col_blocks};
    tile::active::launch<K>(grid, p, opt.stream);
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
