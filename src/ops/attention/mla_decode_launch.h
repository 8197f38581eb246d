// The launcher of the staged MLA decode attention (mla_decode.tile.h), compiled once per tile backend
// (mla_decode_host.cpp, mla_decode_cuda.cu). On the GPU it runs on Hopper only.
//
// It takes fmha_decode calls shaped as mla_decode makes them (attention.cpp): 16-bit, one KV head of 576
// columns whose first 512 are the values (the same memory, a view), query rows that the copy engine can read
// as [B, Sq * H, 576], pages of a multiple of 16 tokens. Everything else takes the generic kernel.
//
//   keys per tile x stages: 64 x 2 (72 KiB each, beside the 72 KiB of query rows): the shared memory of one
//   block a multiprocessor. Multiplying tile j + 1's scores behind tile j's values (both stages held) was
//   slower: 311 against 451 TFLOP/s at B 64 x 8k (H200, session 30): the producer then has no stage to fill
//   while a tile is computed.
#pragma once
#include <limits>

#include "ops/attention/args.h"
#include "ops/attention/decode_splits.h"
#include "ops/attention/mla_decode.tile.h"
#include "ops/common/views.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
// Columns [first, first + count) of rows that are `stride` elements apart, in `planes` planes `plane_stride`
// apart, when the copy engine can read them.
template <class T>
bool mla_columns(const void* data, int64_t planes, int64_t rows, int64_t plane_stride, int64_t stride, int64_t first,
                 int64_t count, tile::View3<const T>& out) {
  out.data = static_cast<const T*>(data) + first;
  out.extent[0] = planes;
  out.extent[1] = rows;
  out.extent[2] = count;
  out.stride[0] = plane_stride;
  out.stride[1] = stride;
  out.stride[2] = 1;
  return rows <= std::numeric_limits<int32_t>::max() && tile::tma_compatible(out);
}

// Whether v_pages is the first columns of k_pages (mla_decode's view of one latent cache).
bool values_inside_keys(const KvCache& c) {
  const Tensor &k = c.k_pages, &v = c.v_pages;
  return k.data() == v.data() && k.stride(0) == v.stride(0) && k.stride(1) == v.stride(1) && k.stride(2) == v.stride(2) &&
         k.stride(3) == 1 && v.stride(3) == 1;
}
}  // namespace

bool mla_decode_staged(const FmhaDecodeArgs& a, const dispatch::Options& opt) {
  using kernels::kMlaRank;
  using kernels::kMlaRope;
  const bool sixteen_bit = a.q.dtype() == DType::bf16 || a.q.dtype() == DType::f16;
  const Tensor &kp = a.cache.k_pages, &q = a.q;
  if (!sixteen_bit || q.size(3) != kMlaRank + kMlaRope || a.cache.v_pages.size(3) != kMlaRank || kp.size(2) != 1 ||
      !values_inside_keys(a.cache))
    return false;
  const bool paged = !is_absent(a.cache.block_table);
  const int64_t B = q.size(0), Sq = q.size(1), H = q.size(2), page_size = kp.size(1);
  if (paged && page_size % kernels::kCacheBox != 0) return false;
  if (kp.stride(0) != page_size * kp.stride(1) || q.stride(3) != 1 || (Sq > 1 && q.stride(1) != H * q.stride(2))) return false;
#if defined(__CUDACC__)
  if (!tile::cuda::device_is_hopper()) return false;
#endif
  bool launched = false;
  visit_float_dtype(q.dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (sizeof(T) == 2) {
      const int64_t cache_rows = kp.size(0) * page_size;
      tile::View3<const T> q_latent, q_rope, k_latent, k_rope;
      if (!mla_columns(q.data(), B, Sq * H, q.stride(0), q.stride(2), 0, kMlaRank, q_latent) ||
          !mla_columns(q.data(), B, Sq * H, q.stride(0), q.stride(2), kMlaRank, kMlaRope, q_rope) ||
          !mla_columns(kp.data(), 1, cache_rows, cache_rows * kp.stride(1), kp.stride(1), 0, kMlaRank, k_latent) ||
          !mla_columns(kp.data(), 1, cache_rows, cache_rows * kp.stride(1), kp.stride(1), kMlaRank, kMlaRope, k_rope))
        return;
      constexpr int BN = 64, STAGES = 2;
      using K = kernels::MlaDecodeStaged<T, BN, STAGES>;
      const int64_t capacity = paged ? a.cache.block_table.size(1) * page_size : page_size;
      const int64_t row_tiles = (Sq * H + K::bm - 1) / K::bm;
      // MLA's key tiles are long in products, so splits are at least 4 tiles.
      const KeySplits ks = split_keys(capacity, BN, B * row_tiles, decode_slots(1), 4);
      typename K::Params p{};
      p.q_latent = tile::active::make_tma_tensor<K::bm, kMlaRank>(q_latent);
      p.q_rope = tile::active::make_tma_tensor<K::bm, kMlaRope>(q_rope);
      p.k = tile::active::make_tma_tensor<kernels::kCacheBox, kMlaRank>(k_latent);
      p.k_rope = tile::active::make_tma_tensor<kernels::kCacheBox, kMlaRope>(k_rope);
      launch_split_decode<K, T, kMlaRank>(p, a, {ks.splits * row_tiles, B, 1}, H, row_tiles, ks.splits, opt.stream);
      launched = true;
    }
  });
  return launched;
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
