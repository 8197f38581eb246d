// The runners of tile_op_runners.h, compiled once per backend.
#pragma once
#include <utility>

#include "common/with_index.h"
#include "ops/common/views.h"
#include "tile_op_kernels.h"
#include "tile_op_runners.h"

namespace tessera::tile_op_tests::TESSERA_TILE_BACKEND {

using tessera::testing::with_index;

namespace {

template <class T>
tile::View2<T> strided_view(const Tensor& t, int64_t offset, int64_t col_stride, int64_t rows, int64_t cols) {
  auto v = ops::as_rows<T>(t);
  check(offset + (cols - 1) * col_stride < v.extent[1] && rows <= v.extent[0], "edge_copy: view outside " + t.str());
  v.data += offset;
  v.stride[1] *= col_stride;
  v.extent[0] = rows;
  v.extent[1] = cols;
  return v;
}
}  // namespace

void reduce_mixed(int layout, const Tensor& x, const Tensor& rows, const Tensor& cols, const Tensor& full) {
  with_index<kNumReduceLayouts>(layout, [&](auto I) {
    constexpr ReduceLayout L = kReduceLayouts[I];
    using K = ReduceMixed<L.rows, L.cols, L.threads>;
    tile::active::launch<K>({1}, {ops::as_rows<const float>(x), ops::as_rows<float>(rows), ops::as_rows<float>(cols),
                                  ops::as_rows<float>(full)}, nullptr);
  });
}

namespace {
template <class T, int R, int C, int TH>
void launch_edge_copy(const CopyCase& c, const Tensor& src, const Tensor& dst) {
  using K = EdgeCopy<T, R, C, TH>;
  typename K::Params p{strided_view<const T>(src, c.src_offset, c.src_col_stride, c.src_rows, c.src_cols),
                       strided_view<T>(dst, c.dst_offset, c.dst_col_stride, c.dst_rows, c.dst_cols), c.step_r, c.step_c,
                       c.dr, c.dc};
  tile::active::launch<K>({c.grid, c.grid}, p, nullptr);
}
template <int R, int C, int TH>
void edge_copy_dtype(const CopyCase& c, const Tensor& src, const Tensor& dst) {
  switch (src.dtype()) {
    case DType::bf16: return launch_edge_copy<bf16, R, C, TH>(c, src, dst);
    case DType::f16: return launch_edge_copy<f16, R, C, TH>(c, src, dst);
    default: return launch_edge_copy<float, R, C, TH>(c, src, dst);
  }
}
}  // namespace

void edge_copy(const CopyCase& c, const Tensor& src, const Tensor& dst) {
  with_index<kNumCopyLayouts>(c.layout, [&](auto I) {
    constexpr CopyLayout L = kCopyLayouts[I];
    edge_copy_dtype<L.rows, L.cols, L.threads>(c, src, dst);
  });
}

}  // namespace tessera::tile_op_tests::TESSERA_TILE_BACKEND
