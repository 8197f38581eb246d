// The runners of the staged test kernels (tile_staged_kernels.h), compiled once per backend.
#pragma once
#include <type_traits>
#include <utility>

#include "common/with_index.h"
#include "ops/common/views.h"
#include "tile_staged.h"
#include "tile_staged_kernels.h"

namespace tessera::tile_staged_tests::TESSERA_TILE_BACKEND {

using tessera::testing::with_index;

namespace {
constexpr tile::Consumers mode(bool pingpong) { return pingpong ? tile::Consumers::pingpong : tile::Consumers::cooperative; }

bool staged_pipeline_runs() {
#if defined(__CUDACC__)
  return tile::cuda::device_is_hopper();  // the staged pipeline runs on Hopper only
#else
  return true;
#endif
}
// [planes * rows, D] as a stack of `planes` matrices of rows.
template <class T>
tile::View3<const T> stacked(const tile::View2<const T>& rows, int64_t planes) {
  tile::View3<const T> v;
  v.data = rows.data;
  v.extent[0] = planes; v.extent[1] = rows.extent[0] / planes; v.extent[2] = rows.extent[1];
  v.stride[0] = v.extent[1] * rows.stride[0]; v.stride[1] = rows.stride[0]; v.stride[2] = rows.stride[1];
  return v;
}
}  // namespace

bool store_async_tiles(int config, const Tensor& src, const Tensor& dst, const Tensor& add) {
  if (!staged_pipeline_runs()) return false;
  with_index<kNumStoreConfigs>(config, [&](auto index) {
    constexpr StoreConfig S = kStoreConfigs[decltype(index)::value];
    using T = std::conditional_t<S.dtype == 0, bf16, std::conditional_t<S.dtype == 1, f16, float>>;
    using K = StoreAsyncTiles<T, S.bm, S.bn, S.consumers, mode(S.pingpong), S.add != 0>;
    typename K::Params p{};
    p.src = ops::as_rows<const float>(src);
    p.dst = tile::active::make_tma_tensor<16, 128 / sizeof(T)>(ops::as_rows<const T>(dst));
    if (S.add != 0) p.add = tile::active::make_tma_tensor<16, 128 / sizeof(T)>(ops::as_rows<const T>(S.add == 2 ? dst : add));
    p.schedule = {(p.src.extent[0] + S.bm - 1) / S.bm, (p.src.extent[1] + S.bn - 1) / S.bn, 8, 1, 1};
    // Fewer blocks than tiles, so that blocks store several.
    const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(3, p.schedule.count()));
    tile::active::launch<K>({blocks}, p, nullptr);
  });
  return true;
}

bool store_through_tiles(int config, const Tensor& src, const Tensor& dst, int64_t planes) {
  if (!staged_pipeline_runs()) return false;
  with_index<kNumStoreThroughConfigs>(config, [&](auto index) {
    constexpr StoreThroughConfig S = kStoreThroughConfigs[decltype(index)::value];
    using T = std::conditional_t<S.dtype == 0, bf16, f16>;
    using K = StoreThroughTiles<T, S.d>;
    typename K::Params p{};
    p.src = stacked(ops::as_rows<const float>(src), planes);
    const auto planes_of_dst = stacked(ops::as_rows<const T>(dst), planes);
    p.tiles = tile::active::make_tma_tensor<128, S.d>(planes_of_dst);
    p.boxes = tile::active::make_tma_tensor<16, int(128 / sizeof(T))>(planes_of_dst);
    tile::active::launch<K>({(planes_of_dst.extent[1] + 127) / 128, planes}, p, nullptr);
  });
  return true;
}

// Whether the GPU runs this shape (on the sm_80 pipeline: cooperative consumers, no clusters, register stores).
bool mma_store_runs(const MmaConfig& s) {
#if defined(__CUDACC__)
  return tile::cuda::device_is_hopper() ||
         (tile::cuda::device_runs_sm80_pipelines() && !s.pingpong && s.cluster == 1 && !s.copy_engine);
#else
  (void)s;
  return true;
#endif
}

bool mma_store(int config, const Tensor& a, const Tensor& b, const Tensor& c, int64_t max_blocks) {
  if (!mma_store_runs(kMmaConfigs[config])) return false;
  with_index<kNumMmaConfigs>(config, [&](auto index) {
    constexpr MmaConfig S = kMmaConfigs[decltype(index)::value];
    using K = MmaStore<S.bm, S.bn, S.stages, S.consumers, mode(S.pingpong), S.cluster, S.copy_engine>;
    typename K::Params p{};
    p.a = tile::active::make_tma_tensor<S.bm, 64>(ops::as_rows<const bf16>(a));
    p.b = tile::active::make_tma_tensor<S.bn / S.cluster, 64>(ops::as_rows<const bf16>(b));
    p.c = ops::as_rows<float>(c);
    p.c_boxes = tile::active::make_tma_tensor<16, 32>(ops::as_rows<const float>(c));
    p.k_tiles = (a.size(1) + 63) / 64;
    p.schedule = {(c.size(0) + S.bm - 1) / S.bm, (c.size(1) + S.bn - 1) / S.bn, 8, 1, S.cluster};
    const int64_t blocks = tile::active::persistent_blocks<K>(p.schedule.count());
    const int64_t capped = std::max<int64_t>(S.cluster, std::min(blocks, max_blocks) / S.cluster * S.cluster);
    tile::active::launch<K>({capped}, p, nullptr);
  });
  return true;
}

bool half_loaded_mma(const Tensor& a, const Tensor& b, const Tensor& c, int64_t max_blocks) {
  if (!staged_pipeline_runs()) return false;
  using K = HalfLoadedStages<128, 128, 4>;
  typename K::Params p{};
  p.a = tile::active::make_tma_tensor<128, 64>(ops::as_rows<const bf16>(a));
  p.b = tile::active::make_tma_tensor<128, 64>(ops::as_rows<const bf16>(b));
  p.c = ops::as_rows<float>(c);
  p.k_tiles = (a.size(1) + 63) / 64;
  p.schedule = {(c.size(0) + 127) / 128, (c.size(1) + 127) / 128, 8, 1, 1};
  const int64_t blocks = std::min(tile::active::persistent_blocks<K>(p.schedule.count()), max_blocks);
  tile::active::launch<K>({std::max<int64_t>(blocks, 1)}, p, nullptr);
  return true;
}

bool sliced_products(int config, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* out) {
  if (!staged_pipeline_runs()) return false;
  with_index<kNumSlicedConfigs>(config, [&](auto index) {
    constexpr SlicedConfig S = kSlicedConfigs[decltype(index)::value];
    using K = SlicedProducts<S.d, S.nk, S.dv, S.consumers>;
    typename K::Params p{};
    // q as a rank-3 view of two planes of rows, so that the rows cross from one plane into the next.
    const int64_t rows = q.size(0), first = (rows + 1) / 2;
    p.q.data = static_cast<const bf16*>(q.data());
    p.q.extent[0] = 2;
    p.q.extent[1] = first;
    p.q.extent[2] = S.d;
    p.q.stride[0] = first * S.d;
    p.q.stride[1] = S.d;
    p.q.stride[2] = 1;
    if (rows % 2 != 0) p.q.extent[0] = 1, p.q.extent[1] = rows;
    p.k = tile::active::make_tma_tensor<K::S * S.nk, S.d>(ops::as_rows<const bf16>(k));
    p.v = tile::active::make_tma_tensor<K::S * S.nk, S.dv>(ops::as_rows<const bf16>(v));
    tile::View2<float>* outs[] = {&p.dots, &p.o, &p.o_sum, &p.row_max, &p.row_sum, &p.max_repeated, &p.o_scaled};
    for (int i = 0; i < 7; ++i) *outs[i] = ops::as_rows<float>(out[i]);
    tile::active::launch<K>({1}, p, nullptr);
  });
  return true;
}

bool column_shares_products(int config, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* out) {
  if (!staged_pipeline_runs()) return false;
  with_index<kNumColumnSharesConfigs>(config, [&](auto index) {
    constexpr ColumnSharesConfig S = kColumnSharesConfigs[decltype(index)::value];
    using K = ColumnSharesProducts<S.d, S.nk, S.dv>;
    typename K::Params p{};
    p.q = tile::active::make_tma_tensor<64, S.d>(ops::as_rows<const bf16>(q));
    p.k = tile::active::make_tma_tensor<S.nk, S.d>(ops::as_rows<const bf16>(k));
    p.v = tile::active::make_tma_tensor<S.nk, S.dv>(ops::as_rows<const bf16>(v));
    tile::View2<float>* outs[] = {&p.dots, &p.o, &p.row_max, &p.row_sum, &p.o_less_max, &p.o_scaled, &p.running};
    for (int i = 0; i < 7; ++i) *outs[i] = ops::as_rows<float>(out[i]);
    tile::active::launch<K>({1}, p, nullptr);
  });
  return true;
}

bool solo_hand_out(int config, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o, const Tensor& maxima) {
  if (!staged_pipeline_runs()) return false;
  with_index<kNumSoloConfigs>(config, [&](auto index) {
    constexpr SoloConfig S = kSoloConfigs[decltype(index)::value];
    using K = SoloHandOut<S.d, S.nk, S.dv, S.tiles>;
    typename K::Params p{};
    p.q = tile::active::make_tma_tensor<64, S.d>(ops::as_rows<const bf16>(q));
    p.k = tile::active::make_tma_tensor<S.nk, S.d>(ops::as_rows<const bf16>(k));
    p.v = tile::active::make_tma_tensor<S.nk, S.dv>(ops::as_rows<const bf16>(v));
    p.o = ops::as_rows<float>(o);
    p.maxima = ops::as_rows<float>(maxima);
    tile::active::launch<K>({1}, p, nullptr);
  });
  return true;
}

bool row_box_fills(int config, const Tensor& a, const Tensor& b, int64_t planes, int64_t plane, const Tensor& box_rows,
                   const Tensor& eye, const Tensor& a_out, const Tensor& b_out) {
  if (!staged_pipeline_runs()) return false;
  with_index<kNumRowBoxConfigs>(config, [&](auto index) {
    constexpr RowBoxConfig S = kRowBoxConfigs[decltype(index)::value];
    using K = RowBoxFills<S.ca, S.cb, S.how>;
    typename K::Params p{};
    p.a = tile::active::make_tma_tensor<K::box, S.ca>(stacked(ops::as_rows<const bf16>(a), planes));
    p.b = tile::active::make_tma_tensor<K::box, S.cb>(stacked(ops::as_rows<const bf16>(b), planes));
    p.box_rows = ops::as_rows<const int32_t>(box_rows);
    p.eye = ops::as_rows<const float>(eye);
    p.a_out = ops::as_rows<float>(a_out);
    p.b_out = ops::as_rows<float>(b_out);
    p.plane = plane;
    tile::active::launch<K>({1}, p, nullptr);
  });
  return true;
}

}  // namespace tessera::tile_staged_tests::TESSERA_TILE_BACKEND
