// The gather/scatter test runner, compiled once per backend.
#pragma once
#include <type_traits>
#include <utility>

#include "common/with_index.h"
#include "gather_rows_kernels.h"
#include "ops/common/views.h"

namespace tessera::gather_rows_tests::TESSERA_TILE_BACKEND {

using tessera::testing::with_index;

namespace {
template <class K, class T>
void launch_rows(const Tensor& src, const Tensor& dst, const Tensor& tile_out, int64_t row0, int64_t col0) {
  typename K::Params p{ops::as_view<const T, 3>(src), ops::as_view<T, 3>(dst), ops::as_rows<T>(tile_out), row0, col0};
  tile::active::launch<K>({1}, p, nullptr);
}
}  // namespace

void gather_scatter(int layout, const Tensor& src, const Tensor& dst, const Tensor& gather_idx, const Tensor& scatter_idx,
                    const Tensor& tile_out, int64_t col0) {
  with_index<kNumGatherLayouts>(layout, [&](auto index) {
    constexpr GatherLayout L = kGatherLayouts[decltype(index)::value];
    using T = std::conditional_t<L.bf16, bf16, float>;
    using K = GatherScatter<T, L.rows, L.cols, L.threads>;
    typename K::Params p{ops::as_view<const T, 3>(src), ops::as_view<T, 3>(dst), ops::as_rows<const int32_t>(gather_idx),
                         ops::as_rows<const int32_t>(scatter_idx), ops::as_rows<T>(tile_out), col0};
    tile::active::launch<K>({1}, p, nullptr);
  });
}

void rows_of_rank3(int layout, const Tensor& src, const Tensor& dst, const Tensor& tile_out, int64_t row0, int64_t col0) {
  with_index<kNumGatherLayouts>(layout, [&](auto index) {
    constexpr GatherLayout L = kGatherLayouts[decltype(index)::value];
    using T = std::conditional_t<L.bf16, bf16, float>;
    launch_rows<RowsOfRank3<T, L.rows, L.cols, L.threads>, T>(src, dst, tile_out, row0, col0);
  });
}

bool accumulator_rows_of_rank3(int layout, const Tensor& src, const Tensor& dst, const Tensor& tile_out, int64_t row0,
                               int64_t col0) {
#if defined(__CUDACC__)
  if (!tile::cuda::device_is_hopper()) return false;  // the staged pipeline runs on Hopper only
#endif
  with_index<kNumAccumulatorLayouts>(layout, [&](auto index) {
    constexpr AccumulatorLayout L = kAccumulatorLayouts[decltype(index)::value];
    using T = std::conditional_t<L.bf16, bf16, float>;
    launch_rows<AccumulatorRowsOfRank3<T, L.cols>, T>(src, dst, tile_out, row0, col0);
  });
  return true;
}

bool accumulator_fragments(int cols, const Tensor& src, const Tensor& scratch, const Tensor& tile_out, int64_t row0,
                           int64_t col0) {
#if defined(__CUDACC__)
  if (!tile::cuda::device_is_hopper()) return false;
#endif
  auto launch = [&](auto k) {
    using K = decltype(k);
    typename K::Params p{ops::as_view<const float, 3>(src), ops::as_view<float, 1>(scratch), ops::as_rows<float>(tile_out),
                         row0, col0};
    tile::active::launch<K>({1}, p, nullptr);
  };
  if (cols == 128) launch(AccumulatorFragments<128>{});
  else launch(AccumulatorFragments<64>{});
  return true;
}

}  // namespace tessera::gather_rows_tests::TESSERA_TILE_BACKEND
