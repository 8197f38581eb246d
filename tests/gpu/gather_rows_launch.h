// The gather/scatter test runner, compiled once per backend.
#pragma once
#include <utility>

#include "gather_rows_kernels.h"
#include "ops/common/views.h"

namespace tessera::gather_rows_tests::TESSERA_TILE_BACKEND {

namespace {
template <class T, int R, int C, int TH>
void launch(const Tensor& src, const Tensor& dst, const Tensor& gather_idx, const Tensor& scatter_idx, const Tensor& tile_out,
            int64_t col0) {
  using K = GatherScatter<T, R, C, TH>;
  typename K::Params p{ops::as_view<const T, 3>(src), ops::as_view<T, 3>(dst), ops::as_rows<const int32_t>(gather_idx),
                       ops::as_rows<const int32_t>(scatter_idx), ops::as_rows<T>(tile_out), col0};
  tile::active::launch<K>({1}, p, nullptr);
}
template <class T, int R, int C, int TH>
void launch_rows(const Tensor& src, const Tensor& dst, const Tensor& tile_out, int64_t row0, int64_t col0) {
  using K = RowsOfRank3<T, R, C, TH>;
  typename K::Params p{ops::as_view<const T, 3>(src), ops::as_view<T, 3>(dst), ops::as_rows<T>(tile_out), row0, col0};
  tile::active::launch<K>({1}, p, nullptr);
}
template <size_t... I>
void dispatch_rows(int layout, const Tensor& src, const Tensor& dst, const Tensor& out, int64_t row0, int64_t col0,
                   std::index_sequence<I...>) {
  auto one = [&](auto index) {
    constexpr GatherLayout L = kGatherLayouts[decltype(index)::value];
    if constexpr (L.bf16) launch_rows<bf16, L.rows, L.cols, L.threads>(src, dst, out, row0, col0);
    else launch_rows<float, L.rows, L.cols, L.threads>(src, dst, out, row0, col0);
  };
  ((layout == int(I) ? (one(std::integral_constant<size_t, I>{}), 0) : 0), ...);
}
template <size_t... I>
void dispatch_layout(int layout, const Tensor& src, const Tensor& dst, const Tensor& gi, const Tensor& si, const Tensor& out,
                     int64_t col0, std::index_sequence<I...>) {
  auto one = [&](auto index) {
    constexpr GatherLayout L = kGatherLayouts[decltype(index)::value];
    if constexpr (L.bf16) launch<bf16, L.rows, L.cols, L.threads>(src, dst, gi, si, out, col0);
    else launch<float, L.rows, L.cols, L.threads>(src, dst, gi, si, out, col0);
  };
  ((layout == int(I) ? (one(std::integral_constant<size_t, I>{}), 0) : 0), ...);
}
}  // namespace

void rows_of_rank3(int layout, const Tensor& src, const Tensor& dst, const Tensor& tile_out, int64_t row0, int64_t col0) {
  dispatch_rows(layout, src, dst, tile_out, row0, col0, std::make_index_sequence<kNumGatherLayouts>{});
}

void gather_scatter(int layout, const Tensor& src, const Tensor& dst, const Tensor& gather_idx, const Tensor& scatter_idx,
                    const Tensor& tile_out, int64_t col0) {
  dispatch_layout(layout, src, dst, gather_idx, scatter_idx, tile_out, col0, std::make_index_sequence<kNumGatherLayouts>{});
}

}  // namespace tessera::gather_rows_tests::TESSERA_TILE_BACKEND
