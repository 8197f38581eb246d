// Launchers of the attention family, compiled once per tile backend (host.cpp and cuda.cu include this file).
//
// Configurations: 128 threads; prefill tiles of 32 query rows, decode tiles of 16 (token, head) rows; keys
// in tiles of 64 and head dims in chunks of 64 (online_softmax.tile.h). Head dims are compiled for the pairs
// (Dqk, Dv) = (64, 64), (128, 128), (192, 128), (256, 256), and for decode also MLA's (576, 512) (where the staged
// MLA kernel does not apply: mla_decode_launch.h); smaller dims run on the next pair up, zero-padded.
// The shared-memory mma of the tile library bounds the tile sizes (its static staging buffers must stay under
// 48 KiB per block with f32 inputs).
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>

#include "ops/attention/args.h"
#include "ops/attention/fmha.tile.h"
#include "ops/attention/decode_splits.h"
#include "ops/attention/fmha_decode.tile.h"
#include "ops/attention/kv_cache_append.tile.h"
#include "ops/attention/rope_kv_cache_append.tile.h"
#include "ops/common/widen_fp8.h"
#include "ops/common/views.h"
#include "ops/rope/rotary.h"
#include "tessera/runtime/workspace.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

// The staged prefill kernel where it applies (fmha_staged_launch.h); false when nothing was launched.
bool fmha_staged(const FmhaArgs& a, const dispatch::Options& opt, float out_scale = 1.f);
bool fmha_varlen_staged(const FmhaVarlenArgs& a, const dispatch::Options& opt);

// Per-device (and per-stream) fp32 scratch for the partial results of split decode, grown on demand and then
// reused: a decode step allocates nothing once the largest shape has run. Launches on one stream are ordered,
// so reuse by the next call on the same stream is safe; different streams get different buffers.
float* decode_scratch(Device device, StreamHandle stream, int64_t floats) {
  // A workspace (grow-only, counted in workspace_generation) per stream.
  const std::string name = "fmha_decode.partials@" + std::to_string(reinterpret_cast<uintptr_t>(stream));
  return static_cast<float*>(workspace(name.c_str(), size_t(floats) * sizeof(float), device, stream));
}

// The staged decode kernel where it applies (fmha_decode_staged_launch.h); false when nothing was launched.
bool fmha_decode_staged(const FmhaDecodeArgs& a, const dispatch::Options& opt);
// The staged MLA decode kernel where it applies (mla_decode_launch.h); false when nothing was launched.
bool mla_decode_staged(const FmhaDecodeArgs& a, const dispatch::Options& opt);

namespace {
constexpr int kThreads = 128, kDecodeRows = 16, kAppendRows = 16;
// Query rows a block of the generic prefill: 64, the tensor cores' fragment layout on 128 threads (fmha.tile.h),
// for 16-bit products where the output rows fit the registers beside the query rows; 32 (plain tiles) at head
// dims 256 and for f32, whose products are staged whole in shared memory.
template <class T, int DQK, int DV>
inline constexpr int kPrefillRows = sizeof(T) == 2 && DQK + DV <= 320 ? 64 : 32;

template <int DQK, int DV>
struct HeadDims {
  static constexpr int qk = DQK, v = DV;
};

// Calls f(HeadDims<DQK, DV>{}) for the smallest compiled pair that holds (dqk, dv). The front-end's check has
// refused larger dims before any launcher runs.
template <class F>
void visit_head_dims(int64_t dqk, int64_t dv, F&& f) {
  if (dqk <= 64 && dv <= 64) f(HeadDims<64, 64>{});
  else if (dqk <= 128 && dv <= 128) f(HeadDims<128, 128>{});
  else if (dqk <= 192 && dv <= 128) f(HeadDims<192, 128>{});
  else if (dqk <= 256 && dv <= 256) f(HeadDims<256, 256>{});
  else invalid_argument("attention: no tile kernel for head dims " + std::to_string(dqk) + " / " + std::to_string(dv));
}

// Decode adds the MLA pair: a 512-wide latent plus 64 rope columns against the 512-wide latent value.
template <class F>
void visit_decode_head_dims(int64_t dqk, int64_t dv, F&& f) {
  if (dqk <= 256 && dv <= 256) visit_head_dims(dqk, dv, f);
  else if (dqk <= 576 && dv <= 512) f(HeadDims<576, 512>{});
  else invalid_argument("attention: no decode tile kernel for head dims " + std::to_string(dqk) + " / " + std::to_string(dv));
}

kernels::MaskParams mask_params(const AttentionParams& p) {
  return {p.causal, p.window_left, kernels::Logits{p.scale, p.softcap}};
}

// T: o's type and the products'; TI: q's, k's and v's (fp8 inputs are widened to T as they are loaded).
template <class T, int DQK, int DV, class TI = T>
void launch_fmha(const FmhaArgs& a, const dispatch::Options& opt, float out_scale = 1.f) {
  constexpr int BM = kPrefillRows<T, DQK, DV>;
  using K = kernels::Fmha<T, BM, DQK, DV, kThreads, TI>;
  typename K::Params p{};
  p.q = as_view<const TI, 4>(a.q);
  p.k = as_view<const TI, 4>(a.k);
  p.v = as_view<const TI, 4>(a.v);
  p.o = as_view<T, 4>(a.o);
  p.out_scale = out_scale;
  p.has_lse = !is_absent(a.lse);
  if (p.has_lse) p.lse = with_unit_column<float, 4>(a.lse, {0, 1, 2});
  p.group = a.q.size(1) / a.k.size(1);
  p.mask = mask_params(a.params);
  const int64_t B = a.q.size(0), Hq = a.q.size(1), Sq = a.q.size(2);
  tile::active::launch<K>({(Sq + BM - 1) / BM, Hq, B}, p, opt.stream);
}

template <class T, int DQK, int DV>
void launch_fmha_varlen(const FmhaVarlenArgs& a, const dispatch::Options& opt) {
  constexpr int BM = kPrefillRows<T, DQK, DV>;
  using K = kernels::FmhaVarlen<T, BM, DQK, DV, kThreads>;
  typename K::Params p{};
  p.q = permuted<const T, 3>(a.q, {1, 0, 2});
  p.k = permuted<const T, 3>(a.k, {1, 0, 2});
  p.v = permuted<const T, 3>(a.v, {1, 0, 2});
  p.o = permuted<T, 3>(a.o, {1, 0, 2});
  p.has_lse = !is_absent(a.lse);
  if (p.has_lse) p.lse = with_unit_column<float, 3>(a.lse, {1, 0});
  p.cu_q = as_view<const int32_t, 1>(a.cu_q);
  p.cu_k = as_view<const int32_t, 1>(a.cu_k);
  p.group = a.q.size(1) / a.k.size(1);
  p.mask = mask_params(a.params);
  const int64_t Tq = a.q.size(0), Hq = a.q.size(1), B = a.cu_q.size(0) - 1;
  tile::active::launch<K>({(Tq + BM - 1) / BM, Hq, B + 1}, p, opt.stream);
}

template <class T, int DQK, int DV>
void launch_fmha_decode(const FmhaDecodeArgs& a, const dispatch::Options& opt) {
  using K = kernels::FmhaDecode<T, kDecodeRows, DQK, DV, kThreads>;
  const int64_t B = a.q.size(0), Sq = a.q.size(1), Hq = a.q.size(2), Hkv = a.cache.k_pages.size(2);
  const int64_t Dv = a.cache.v_pages.size(3), page_size = a.cache.k_pages.size(1);
  const bool paged = !is_absent(a.cache.block_table);
  const int64_t G = Hq / Hkv, row_tiles = (Sq * G + kDecodeRows - 1) / kDecodeRows;
  const int64_t capacity = paged ? a.cache.block_table.size(1) * page_size : page_size;
  const int64_t splits = split_keys(capacity, kernels::kKeyTile, B * Hkv * row_tiles, decode_slots(2)).splits;

  typename K::Params p{};
  p.q = as_view<const T, 4>(a.q);
  p.k_pages = permuted<const T, 4>(a.cache.k_pages, {2, 0, 1, 3});
  p.v_pages = permuted<const T, 4>(a.cache.v_pages, {2, 0, 1, 3});
  if (paged) p.block_table = with_unit_column<const int32_t, 4>(a.cache.block_table.reshape({B, a.cache.block_table.size(1), 1}), {0, 1, 2});
  p.seq_lens = as_view<const int32_t, 1>(a.seq_lens);
  p.o = as_view<T, 4>(a.o);
  p.paged = paged;
  p.group = G;
  p.row_tiles = row_tiles;
  p.splits = splits;
  p.window_left = a.params.window_left;
  p.logits = {a.params.scale, a.params.softcap};
  const tile::Grid grid{splits * row_tiles, Hkv, B};
  if (splits == 1) {
    tile::active::launch<K>(grid, p, opt.stream);
    return;
  }
  const DecodePartials parts(a.q.device(), opt.stream, splits, B, Sq, Hq, Dv);
  p.o_part = parts.o_view();
  p.m_part = parts.m_view();
  p.l_part = parts.l_view();
  tile::active::launch<K>(grid, p, opt.stream);
  merge_decode_partials<T, DV>(parts, a.o, opt.stream);
}
}  // namespace

void fmha(const FmhaArgs& a, const dispatch::Options& opt) {
  if (fmha_staged(a, opt)) return;
  visit_float_dtype(a.q.dtype(), [&](auto t) {
    visit_head_dims(a.q.size(3), a.v.size(3), [&](auto d) { launch_fmha<decltype(t), d.qk, d.v>(a, opt); });
  });
}

#if defined(__CUDACC__)
// q, k and v widened to o's dtype in scratch (widened_fp8), then run as fmha, v's scale applied to o.
void fmha_fp8(const FmhaFp8Args& a, const dispatch::Options& opt) {
  auto run = [&](auto t) {
    using T = decltype(t);
    const FmhaArgs args{widened_fp8<T>("fmha_fp8.q", a.q, opt), widened_fp8<T>("fmha_fp8.k", a.k, opt),
                        widened_fp8<T>("fmha_fp8.v", a.v, opt), a.o, a.lse, a.params};
    if (fmha_staged(args, opt, a.v_scale)) return;
    visit_head_dims(a.q.size(3), a.v.size(3), [&](auto d) { launch_fmha<T, d.qk, d.v>(args, opt, a.v_scale); });
  };
  if (a.o.dtype() == DType::bf16) run(bf16{});
  else run(f16{});
}
#else
// On the CPU each fp8 tile is widened as the generic kernel loads it (no scratch), its products in o's type.
void fmha_fp8(const FmhaFp8Args& a, const dispatch::Options& opt) {
  const FmhaArgs args{a.q, a.k, a.v, a.o, a.lse, a.params};
  auto run = [&](auto t) {
    visit_head_dims(a.q.size(3), a.v.size(3), [&](auto d) {
      launch_fmha<decltype(t), d.qk, d.v, fp8_e4m3>(args, opt, a.v_scale);
    });
  };
  if (a.o.dtype() == DType::bf16) run(bf16{});
  else run(f16{});
}
#endif

void fmha_varlen(const FmhaVarlenArgs& a, const dispatch::Options& opt) {
  if (fmha_varlen_staged(a, opt)) return;
  visit_float_dtype(a.q.dtype(), [&](auto t) {
    visit_head_dims(a.q.size(2), a.v.size(2), [&](auto d) { launch_fmha_varlen<decltype(t), d.qk, d.v>(a, opt); });
  });
}

void fmha_decode(const FmhaDecodeArgs& a, const dispatch::Options& opt) {
  if (mla_decode_staged(a, opt) || fmha_decode_staged(a, opt)) return;
  visit_float_dtype(a.q.dtype(), [&](auto t) {
    visit_decode_head_dims(a.q.size(3), a.cache.v_pages.size(3),
                    [&](auto d) { launch_fmha_decode<decltype(t), d.qk, d.v>(a, opt); });
  });
}

void kv_cache_append(const KvCacheAppendArgs& a, const dispatch::Options& opt) {
  visit_float_dtype(a.k.dtype(), [&](auto t) {
    using T = decltype(t);
    using K = kernels::KvCacheAppend<T, kAppendRows, 128, kThreads>;  // head dim 128 in one round trip
    typename K::Params p{};
    p.k = as_view<const T, 3>(a.k);
    p.v = as_view<const T, 3>(a.v);
    p.k_pages = permuted<T, 4>(a.cache.k_pages, {2, 0, 1, 3});
    p.v_pages = permuted<T, 4>(a.cache.v_pages, {2, 0, 1, 3});
    p.slots = with_unit_column<const int64_t, 3>(a.slots.reshape({a.slots.numel(), 1}), {0, 1});
    const int64_t T_ = a.k.size(0), Hkv = a.k.size(1);
    tile::active::launch<K>({(T_ + kAppendRows - 1) / kAppendRows, Hkv}, p, opt.stream);
  });
}

namespace {
template <class T, int HEADS>
void launch_rope_kv_cache_append(const RopeKvCacheAppendArgs& a, const dispatch::Options& opt) {
  // Many tokens (32-head blocks): 128 threads a block and at most 128 registers a thread, 4 blocks a
  // multiprocessor. With 64 threads it took 190 registers and ran 5 blocks: a 2048-token prefill's call took
  // 64 us for ~55 MB (0.9 TB/s); capped at 128 with 64 threads, it spilled. A decode step's 8-head blocks are
  // few, and their latency is what counts: uncapped.
  constexpr int threads = HEADS == 32 ? 128 : 64;
  using Kernel = kernels::RopeKvCacheAppend<T, HEADS, 64, threads>;
  using K = std::conditional_t<HEADS == 32, tile::MinBlocksPerSm<Kernel, 4>, Kernel>;
  typename K::Params p{};
  p.q = as_view<T, 3>(a.q);
  p.k = as_view<T, 3>(a.k);
  p.v = as_view<const T, 3>(a.v);
  p.k_pages = as_view<T, 4>(a.cache.k_pages);
  p.v_pages = as_view<T, 4>(a.cache.v_pages);
  p.slots = as_view<const int64_t, 1>(a.slots);
  p.rotary = rotary_of(a.positions, a.inv_freq, a.layout, a.rotary_dim);
  const int64_t Hq = a.q.size(1), Hkv = a.k.size(1);
  p.q_blocks = (Hq + HEADS - 1) / HEADS;
  p.k_blocks = (Hkv + HEADS - 1) / HEADS;
  tile::active::launch<K>({a.q.size(0), p.q_blocks + 2 * p.k_blocks}, p, opt.stream);
}
}  // namespace

// Blocks of heads as rope takes them (ops/rope/rotary.h), over the q, k and v heads together.
void rope_kv_cache_append(const RopeKvCacheAppendArgs& a, const dispatch::Options& opt) {
  const bool small_blocks = rope_in_8_head_blocks(a.q.size(0), a.q.size(1) + 2 * a.k.size(1));
  visit_float_dtype(a.k.dtype(), [&](auto t) {
    if (small_blocks) launch_rope_kv_cache_append<decltype(t), 8>(a, opt);
    else launch_rope_kv_cache_append<decltype(t), 32>(a, opt);
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
