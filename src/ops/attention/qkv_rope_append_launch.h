// The launcher of qkv_rope_kv_cache_append, compiled once per tile backend (qkv_rope_append_host.cpp,
// qkv_rope_append_cuda.cu).
//
// Three ways to run it:
//   unfused        the matmul (tuned as any projection), then rope_kv_cache_append: two launches
//   rows1_bi2_x2   one token: the fused streaming kernel (qkv_rope_append.tile.h), 2 pairs of weight rows a
//                  block (4 rows, as the few-rows matmul's rows1_bn4_x2_chunked), 2 tiles of each in flight,
//                  5 blocks a multiprocessor (its running chunk sums leave room for them)
//   rows1_bi1_x4   1 pair a block, 4 tiles of each in flight (as rows1_bn2_x4)
// The fused forms need one token, 16-bit operands, every feature rotated (rotary_dim = D) and 32-bit indices.
// There both backends run rows1_bi2_x2 (the host too: its CPU engine decodes the embedded model in bf16 at
// 46.5-47.5 tokens/s with it against 45.1-45.9 unfused) unless K is longer than one group of its two 1024-column
// tiles and not a whole number of them: the kernel takes what is left one tile at a time with masked edges,
// and at Qwen2-7B's K = 3584 it took 22.3 us against 16.5 for the matmul (swap-AB there) and rope. The others
// run when forced (TESSERA_AUTOTUNE_FORCE, tests).
//
// Not tuned: timed alone after an L2 flush, the fused kernel loses to the matmul and rope by ~1 us (19.6 us
// against 18.5 for Llama-3-8B's 1 x 6144 x 4096 on an H200; the plain matmul alone takes 16.7), yet a batch-1
// decode step is 1.3-1.7% faster with it (4.70 ms against 4.78, 4.75 against 4.82: six alternated rounds each,
// every round faster). In a chain of dependent kernels a second launch costs ~5 us, which a kernel timed alone
// does not show (bench/results/2026-11-29-h200-session47).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ops/attention/args.h"
#include "ops/attention/qkv_rope_append.tile.h"
#include "ops/common/this_backend.h"
#include "ops/common/views.h"
#include "ops/rope/rotary.h"
#include "tessera/dispatch/autotune.h"
#include "tessera/ops/matmul.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
namespace at = dispatch::autotune;

template <class T, int BI, int DEPTH, int MIN_BLOCKS>
void launch_qkv_rope_append_fused(const QkvRopeKvCacheAppendArgs& a, const dispatch::Options& opt) {
  using K = tile::MinBlocksPerSm<kernels::QkvRopeKvCacheAppend<T, BI, 1024, 128, DEPTH>, MIN_BLOCKS>;
  typename K::Params p{};
  p.a = as_rows<const T>(a.x);
  p.w = as_rows<const T>(a.w);
  p.bias = a.bias.data() != nullptr ? static_cast<const T*>(a.bias.data()) : nullptr;
  p.qkv = static_cast<T*>(a.qkv.data());
  p.k_pages = as_view<T, 4>(a.rope.cache.k_pages);
  p.v_pages = as_view<T, 4>(a.rope.cache.v_pages);
  p.slots = as_view<const int64_t, 1>(a.rope.slots);
  p.rotary = rotary_of(a.rope.positions, a.rope.inv_freq, a.rope.layout, a.rope.rotary_dim);
  p.q_heads = a.rope.q.size(1);
  p.kv_heads = a.rope.k.size(1);
  p.head_dim = a.rope.k.size(2);
  p.weights_settled = opt.weights_settled;
  const int64_t blocks_per_head = p.head_dim / 2 / BI;
  tile::active::launch<K>({(p.q_heads + 2 * p.kv_heads) * blocks_per_head}, p, opt.stream);
}

// The matmul, then rope_kv_cache_append, each on this backend.
void qkv_rope_append_unfused(const QkvRopeKvCacheAppendArgs& a, const dispatch::Options& opt) {
  const dispatch::Options here = on_this_backend(opt);
  Epilogue e;
  e.bias = a.bias;
  ops::matmul(a.x, a.w, a.qkv, BLayout::nk, e, here);
  const RopeKvCacheAppendArgs& r = a.rope;
  ops::rope_kv_cache_append(r.q, r.k, r.v, r.positions, r.inv_freq, r.layout, r.rotary_dim, r.cache, r.slots, here);
}
}  // namespace

void qkv_rope_kv_cache_append(const QkvRopeKvCacheAppendArgs& a, const dispatch::Options& opt) {
  const int64_t T = a.x.size(0), D = a.rope.k.size(2);
  const bool sixteen_bit = a.x.dtype() == DType::bf16 || a.x.dtype() == DType::f16;
  const int64_t cache_slots = a.rope.cache.k_pages.size(0) * a.rope.cache.k_pages.size(1);
  // The fused kernel's index arithmetic is 32-bit (qkv_rope_append.tile.h).
  if (T != 1 || !sixteen_bit || a.rope.rotary_dim != D || D % 2 != 0 || cache_slots > INT32_MAX || a.w.size(0) > INT32_MAX)
    return qkv_rope_append_unfused(a, opt);
  visit_float_dtype(a.x.dtype(), [&](auto t) {
    using T16 = decltype(t);
    if constexpr (sizeof(T16) == 2) {
      std::vector<at::Candidate> candidates = {{"unfused", [&] { qkv_rope_append_unfused(a, opt); }}};
      if (D % 4 == 0)
        candidates.push_back({"rows1_bi2_x2", [&] { launch_qkv_rope_append_fused<T16, 2, 2, 5>(a, opt); }});
      candidates.push_back({"rows1_bi1_x4", [&] { launch_qkv_rope_append_fused<T16, 1, 4, 5>(a, opt); }});
#if defined(__CUDACC__)
      constexpr auto where = at::Where::cuda;
#else
      constexpr auto where = at::Where::host;
#endif
      const int64_t n = a.w.size(0), k = a.x.size(1);
      const size_t heuristic = k <= 2048 || k % 2048 == 0 ? 1 : 0;  // the first fused form, or unfused
      const at::Key key = at::make_key("qkv_rope_kv_cache_append", std::string(dtype_name(a.x.dtype())),
                                       at::shape_class({{"n", n}, {"k", k}, {"d", D}}));
      candidates[at::select_index(key, candidates, heuristic, opt.stream, where, /*tunable=*/false)].launch();
    }
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
