// The launcher of the staged decode attention (fmha_decode_staged.tile.h), compiled once per tile backend
// (fmha_decode_staged_host.cpp, fmha_decode_staged_cuda.cu). On the GPU it runs on Hopper only.
//
//   head dim   keys per tile x stages, blocks per multiprocessor (autotuner candidates; the first is the default)
//   64         128 x 4 (4 x 32 KiB), one
//   128        64 x 3 (3 x 32 KiB), two;   64 x 4 (4 x 32 KiB), one;   32 x 6 (6 x 16 KiB), two: the consumer
//              holds 16 KiB while it computes instead of 32, so more of the same shared memory is loads in flight
//              (2-4% faster from B x S = 32k keys up on an H200, slower below; splits as long in keys as 64 x 3's)
// Sliced (fmha_decode_sliced.tile.h): 16 query rows a block, each key tile cut in four slices, one a consumer
// warp, on the warp-level tensor-core instruction; the same tiles and stages as above. The default where a
// group's rows fit in 16 (a decode step of GQA up to 16 heads a group): in the B 1 x 2k step of Llama-3.1-8B
// shapes 14.8-16.1 us against 15.5-17.0 (H200, session 29), the step itself unchanged within its noise.
// Known defect: key tiles as wide as the head dim (64 x 64 here, 128 x 128 in the prefill kernel) give wrong
// results on the GPU once a block reads more than one key tile (right in host mode); not offered.
// Two blocks per multiprocessor overlap one block's start and end with the other's loads. The keys are split
// for the fewest waves of blocks (split_keys). Other head dims,
// Dqk != Dv, 32-bit inputs, page sizes that are not multiples of 16 tokens and caches the copy engine cannot
// read as [Hkv planes, pages * page_size rows, D] (16-byte aligned, pages evenly spaced) take the generic kernel.
#pragma once
#include <limits>

#include "ops/attention/args.h"
#include "ops/attention/decode_splits.h"
#include "ops/attention/fmha_decode_sliced.tile.h"
#include "ops/common/views.h"
#include "tessera/dispatch/autotune.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
// A cache [pages, page_size, Hkv, D] as Hkv planes of pages * page_size rows, when the copy engine can read it.
template <class T>
bool cache_planes(const Tensor& pages, tile::View3<const T>& out) {
  if (pages.stride(0) != pages.size(1) * pages.stride(1)) return false;
  const int64_t rows = pages.size(0) * pages.size(1);
  if (rows > std::numeric_limits<int32_t>::max()) return false;
  out.data = static_cast<const T*>(pages.data());
  out.extent[0] = pages.size(2);
  out.extent[1] = rows;
  out.extent[2] = pages.size(3);
  out.stride[0] = pages.stride(2);
  out.stride[1] = pages.stride(1);
  out.stride[2] = pages.stride(3);
  return tile::tma_compatible(out);
}

bool staged_decode_applies(const FmhaDecodeArgs& a) {
  const bool sixteen_bit = a.q.dtype() == DType::bf16 || a.q.dtype() == DType::f16;
  const int64_t d = a.q.size(3);
  if (!sixteen_bit || a.cache.v_pages.size(3) != d || (d != 64 && d != 128)) return false;
  const bool paged = !is_absent(a.cache.block_table);
  if (paged && a.cache.k_pages.size(1) % kernels::kCacheBox != 0) return false;
#if defined(__CUDACC__)
  if (!tile::cuda::device_is_hopper()) return false;
#endif
  return true;
}

namespace at = dispatch::autotune;

// A split streams at least this many key tiles: fewer, and a block's start and end and the merge cost more
// than the keys (measured: 33 one-tile splits of a 2k-token sequence took 48 us + 71 us of merge, with a
// merge that has since become 3x faster). Each configuration is also offered with splits of at least 2 tiles:
// at batch 1 a 2k-token cache otherwise runs on 56 of 132 multiprocessors, five tiles in series each.
constexpr int64_t kMinTilesPerSplit = 4, kMinTilesPerShortSplit = 2;

// The sliced kernel (fmha_decode_sliced.tile.h) for 16 query rows a block, first where a group's rows fit
// in 16 (its default then), last otherwise (more than 16 rows read the keys once per 16).
template <class T, class F>
std::vector<at::Candidate> staged_decode_configs(int64_t d, int64_t rows, const F& launch) {
  using kernels::StagedDecodeShape;
  constexpr int64_t n = kMinTilesPerSplit, s = kMinTilesPerShortSplit;
  // The sliced kernel with one consumer warpgroup: two (eight slices of 128-key tiles) were slower at
  // B 1 x 2k, 26-28 us against 15-16 (H200, session 29).
  constexpr std::true_type sliced;
  constexpr std::false_type whole;
  std::vector<at::Candidate> staged, few_rows;
  if (d == 64) {
    staged = {{"bn128_s4", [=] { launch(StagedDecodeShape<T, 64, 128, 4, 1>{}, n, whole); }},
              {"bn128_s4_short", [=] { launch(StagedDecodeShape<T, 64, 128, 4, 1>{}, s, whole); }}};
    few_rows = {{"sliced_bn128_s4", [=] { launch(StagedDecodeShape<T, 64, 128, 4, 1>{}, n, sliced); }},
                {"sliced_bn128_s4_short", [=] { launch(StagedDecodeShape<T, 64, 128, 4, 1>{}, s, sliced); }}};
  } else {
    staged = {{"bn64_s3_x2", [=] { launch(StagedDecodeShape<T, 128, 64, 3, 2>{}, n, whole); }},
              {"bn64_s4", [=] { launch(StagedDecodeShape<T, 128, 64, 4, 1>{}, n, whole); }},
              {"bn64_s3_x2_short", [=] { launch(StagedDecodeShape<T, 128, 64, 3, 2>{}, s, whole); }},
              {"bn64_s4_short", [=] { launch(StagedDecodeShape<T, 128, 64, 4, 1>{}, s, whole); }},
              {"bn32_s6_x2", [=] { launch(StagedDecodeShape<T, 128, 32, 6, 2>{}, 2 * n, whole); }},
              {"bn32_s6_x2_short", [=] { launch(StagedDecodeShape<T, 128, 32, 6, 2>{}, 2 * s, whole); }},
              // The producer's threads copy (session 68): 1-4% faster than the copy engine on 16-token pages.
              {"bn64_s3_x2_threads", [=] { launch(StagedDecodeShape<T, 128, 64, 3, 2, true>{}, n, whole); }},
              {"bn64_s3_x2_threads_short", [=] { launch(StagedDecodeShape<T, 128, 64, 3, 2, true>{}, s, whole); }}};
    few_rows = {{"sliced_bn64_s3_x2", [=] { launch(StagedDecodeShape<T, 128, 64, 3, 2>{}, n, sliced); }},
                {"sliced_bn64_s3_x2_short", [=] { launch(StagedDecodeShape<T, 128, 64, 3, 2>{}, s, sliced); }},
                {"sliced_bn64_s4", [=] { launch(StagedDecodeShape<T, 128, 64, 4, 1>{}, n, sliced); }},
                {"sliced_bn64_s3_x2_threads", [=] { launch(StagedDecodeShape<T, 128, 64, 3, 2, true>{}, n, sliced); }}};
  }
  auto& first = rows <= tile::kSliceRows ? few_rows : staged;
  auto& last = rows <= tile::kSliceRows ? staged : few_rows;
  first.insert(first.end(), last.begin(), last.end());
  return first;
}

#if defined(__CUDACC__)
constexpr auto kDecodeTuneWhere = at::Where::cuda;
#else
constexpr auto kDecodeTuneWhere = at::Where::host;
#endif
}  // namespace

bool fmha_decode_staged(const FmhaDecodeArgs& a, const dispatch::Options& opt) {
  if (!staged_decode_applies(a)) return false;
  bool launched = false;
  visit_float_dtype(a.q.dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (sizeof(T) == 2) {
      tile::View3<const T> k_planes, v_planes;
      if (!cache_planes(a.cache.k_pages, k_planes) || !cache_planes(a.cache.v_pages, v_planes)) return;
      const int64_t B = a.q.size(0), Sq = a.q.size(1), Hq = a.q.size(2), d = a.q.size(3);
      const int64_t Hkv = a.cache.k_pages.size(2), page_size = a.cache.k_pages.size(1), G = Hq / Hkv;
      const bool paged = !is_absent(a.cache.block_table);
      const int64_t capacity = paged ? a.cache.block_table.size(1) * page_size : page_size;
      auto launch = [&, k_planes, v_planes](auto shape, int64_t min_tiles_per_split, auto sliced) {
        using Shape = decltype(shape);
        using Staged = kernels::FmhaDecodeStaged<T, Shape::d, Shape::bn, Shape::Pipe::stages, Shape::blocks_per_sm, Shape::threads_copy>;
        using Sliced = kernels::FmhaDecodeSliced<T, Shape::d, Shape::bn, Shape::Pipe::stages, Shape::blocks_per_sm, 1, Shape::threads_copy>;
        using K = std::conditional_t<decltype(sliced)::value, Sliced, Staged>;
        const int64_t block_rows = decltype(sliced)::value ? Sliced::rows : Shape::bm;
        const int64_t row_tiles = (Sq * G + block_rows - 1) / block_rows;
        const KeySplits ks = split_keys(capacity, Shape::bn, B * Hkv * row_tiles,
                                        decode_slots(Shape::blocks_per_sm), min_tiles_per_split);
        typename K::Params p{};
        p.q = as_view<const T, 4>(a.q);
        p.k = tile::active::make_tma_tensor<kernels::kCacheBox, Shape::d>(k_planes);
        p.v = tile::active::make_tma_tensor<kernels::kCacheBox, Shape::d>(v_planes);
        launch_split_decode<K, T, Shape::d>(p, a, {ks.splits * row_tiles, Hkv, B}, G, row_tiles, ks.splits, opt.stream);
      };
      const auto configs = staged_decode_configs<T>(d, Sq * G, launch);
      // "_sliced": the candidates include the sliced kernel (choices cached before it are not reused).
      const std::string kind =
          std::string(dtype_name(a.q.dtype())) + (a.params.window_left >= 0 ? "_window" : "") + "_sliced";
      const auto key = at::make_key("fmha_decode", kind,
                                    at::shape_class({{"d", d}, {"rows", at::pow2_bucket(Sq * G)},
                                                     {"heads", at::pow2_bucket(B * Hkv)}, {"keys", at::pow2_bucket(capacity)}}));
      at::select(key, configs, 0, opt.stream, kDecodeTuneWhere).launch();
      launched = true;
    }
  });
  return launched;
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
