// The runners of tile_parity.h, compiled once per backend.
#pragma once
#include <utility>

#include "common/with_index.h"
#include "ops/common/views.h"
#include "tile_parity.h"
#include "tile_parity_kernels.h"

namespace tessera::tile_tests::TESSERA_TILE_BACKEND {

using ops::as_rows;
using tessera::testing::with_index;

void elementwise(int layout, const Tensor& x, const Tensor& y, const Tensor& out) {
  with_index<kNumLayouts>(layout, [&](auto I) {
    constexpr Layout L = kLayouts[I];
    using K = Elementwise<L.rows, L.cols, L.threads>;
    tile::active::launch<K>({1}, {as_rows<const float>(x), as_rows<const float>(y), as_rows<float>(out)}, nullptr);
  });
}

void reduce(int layout, const Tensor& x, const Tensor& rows, const Tensor& cols, const Tensor& full, float pad) {
  with_index<kNumLayouts>(layout, [&](auto I) {
    constexpr Layout L = kLayouts[I];
    using K = Reduce<L.rows, L.cols, L.threads>;
    tile::active::launch<K>({1}, {as_rows<const float>(x), as_rows<float>(rows), as_rows<float>(cols), as_rows<float>(full), pad}, nullptr);
  });
}

void mma_transpose(int shape, const Tensor& a, const Tensor& b, const Tensor& bt, const Tensor& acc0, const Tensor& out0,
                   const Tensor& out1, const Tensor& out2) {
  with_index<kNumMmaShapes>(shape, [&](auto I) {
    constexpr MmaShape S = kMmaShapes[I];
    using K = MmaTranspose<S.m, S.n, S.k, S.threads>;
    tile::active::launch<K>({1}, {as_rows<const float>(a), as_rows<const float>(b), as_rows<const float>(bt), as_rows<const float>(acc0),
                                  as_rows<float>(out0), as_rows<float>(out1), as_rows<float>(out2)}, nullptr);
  });
}

void mma_fragments(int shape, const Tensor& a, const Tensor& b, const Tensor& bt, const Tensor& acc0, const Tensor& out0,
                   const Tensor& out1, const Tensor& out2) {
  with_index<kNumFragmentShapes>(shape, [&](auto I) {
    constexpr MmaShape S = kFragmentShapes[I];
    using K = MmaFragments<S.m, S.n, S.k, S.threads>;
    tile::active::launch<K>({1}, {as_rows<const float>(a), as_rows<const float>(b), as_rows<const float>(bt), as_rows<const float>(acc0),
                                  as_rows<float>(out0), as_rows<float>(out1), as_rows<float>(out2)}, nullptr);
  });
}

void load_store(bool bf16_elements, bool strided, const Tensor& src, const Tensor& dst, int grid, int64_t step) {
  auto run = [&](auto t) {
    using T = decltype(t);
    using K = LoadStoreEdges<T, 8, 16, 64>;
    auto v = as_rows<const T>(src);
    if (strided) { v.extent[1] = (v.extent[1] + 1) / 2; v.stride[1] = 2; }
    tile::active::launch<K>({grid, grid}, {v, as_rows<T>(dst), step, step}, nullptr);
  };
  if (bf16_elements) run(bf16{}); else run(float{});
}

// 8 x 64 tiles (16 bytes or more a thread: the vector path) loaded with both hints, columns col_step apart.
void load_read_once(bool bf16_elements, const Tensor& src, const Tensor& dst, int grid, int64_t step, int64_t col_step) {
  auto run = [&](auto t) {
    using T = decltype(t);
    using K = LoadStoreEdges<T, 8, 64, 64, tile::ColdEdges, tile::ReadOnce>;
    tile::active::launch<K>({grid, grid}, {as_rows<const T>(src), as_rows<T>(dst), step, col_step}, nullptr);
  };
  if (bf16_elements) run(bf16{}); else run(float{});
}

void atomic_add(const Tensor& x, const Tensor& out, int blocks) {
  using K = AtomicAdd<4, 32, 64>;
  tile::active::launch<K>({blocks}, {as_rows<const float>(x), as_rows<float>(out)}, nullptr);
}

}  // namespace tessera::tile_tests::TESSERA_TILE_BACKEND
