// The launcher of the staged prefill attention (fmha_staged.tile.h), compiled once per tile backend
// (fmha_staged_host.cpp, fmha_staged_cuda.cu): its own translation units keep the heavy attention TU from
// growing. On the GPU it runs on Hopper only.
//
//   head dim   keys per tile x stages, each stage one key or value tile (autotuner candidates; the first is
//              the default)
//   64         128 x 8 (8 x 16 KiB); 64 x 12 (short sequences); 128 x 8 with overlapped work items
//   128        128 x 6 (6 x 32 KiB, FlashAttention-3's tile); 64 x 8 (short sequences, windows); 128 x 5 with
//              overlapped work items (persistent only: 5 stages beside the 32 KiB of O's staging buffers)
//   256        64 x 4 (4 x 32 KiB) alone. On an H200 (session 31) the 32-key tile in 8 stages was 0.64-0.74x
//              cuDNN where 64 x 4 was 0.86-0.97x, and 64 x 5 (all the shared memory) timed as 64 x 4.
//   192 / 128  (MLA prefill: keys 192 wide, values 128) 128 x 3 (3 x 48 KiB), 64 x 6 (6 x 24 KiB); a stage is
//              as wide as the keys, and a value fill leaves its last 64 columns out.
// The block's query tile stays in shared memory (BM x Dqk: 16, 32, 48 or 64 KiB) beside the stages.
// Each step holds two stages (the keys of tile j, the values of tile j - 1); the producer fills the others.
// Other head dims, 32-bit inputs and Q/K/V that the copy engine cannot read as [B * H, S, D] planes
// (16-byte aligned rows, heads evenly spaced) take the generic kernel.
#pragma once
#include "ops/attention/args.h"
#include "ops/attention/fmha_staged.tile.h"
#include "ops/attention/planes.h"
#include "ops/common/views.h"
#include "tessera/dispatch/autotune.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
bool staged_applies(const Tensor& q, const Tensor& v, int64_t keys) {
  const bool sixteen_bit = q.dtype() == DType::bf16 || q.dtype() == DType::f16;
  const int64_t dqk = q.size(-1), dv = v.size(-1);
  const bool compiled = (dqk == dv && (dqk == 64 || dqk == 128 || dqk == 256)) || (dqk == 192 && dv == 128);
  if (!sixteen_bit || !compiled || keys == 0) return false;
#if defined(__CUDACC__)
  if (!tile::cuda::device_is_hopper()) return false;
#endif
  return true;
}

kernels::MaskParams staged_mask(const AttentionParams& p) {
  return {p.causal, p.window_left, kernels::Logits{p.scale, p.softcap}};
}

// The autotuner's key: head dims, mask kind and sizes (heads, rows per head and keys, as powers of two).
namespace at = dispatch::autotune;
at::Key staged_tune_key(const char* op, DType dtype, int64_t dqk, int64_t dv, int64_t heads, int64_t rows, int64_t keys,
                        const AttentionParams& p) {
  const std::string kind =
      std::string(dtype_name(dtype)) + (p.causal ? "_causal" : "") + (p.window_left >= 0 ? "_window" : "");
  const long long h = at::pow2_bucket(heads), r = at::pow2_bucket(rows), n = at::pow2_bucket(keys);
  if (dv != dqk) return at::make_key(op, kind, at::shape_class({{"d", dqk}, {"dv", dv}, {"heads", h}, {"rows", r}, {"keys", n}}));
  return at::make_key(op, kind, at::shape_class({{"d", dqk}, {"heads", h}, {"rows", r}, {"keys", n}}));
}

// The configurations (keys per tile, stages) of a head dim as autotuner candidates, each calling
// launch(StagedAttentionShape{}, persistent); the first is the heuristic default. With `persistent_too`, each
// also as a persistent grid (one block a multiprocessor, each running work items in turn: "_persistent"),
// offered first: on an H200 it ran 16 x 16 x 1k x 128 in 254.6 us against 271.1 for a block an item, causal
// 197.0 against 210.9 (causal items then in weight order), 8 x 16 x 2k x 64 343.5 against 362.4, and within 0.5%
// at 4k to 16k (session 37).
template <class T, class F>
std::vector<at::Candidate> staged_configs(int64_t dqk, int64_t dv, const F& launch, bool persistent_too = false) {
  using kernels::StagedAttentionShape;
  std::vector<at::Candidate> configs;
  auto add = [&](const char* name, auto shape) {
    if (persistent_too) configs.push_back({std::string(name) + "_persistent", [=] { launch(shape, true); }});
    configs.push_back({name, [=] { launch(shape, false); }});
  };
  // Overlapped work items (fmha_staged.tile.h) exist only where a block runs several: persistent grids.
  auto add_overlapped = [&](const char* name, auto shape) {
    if (persistent_too) configs.push_back({std::string(name) + "_persistent", [=] { launch(shape, true); }});
  };
  if (dqk != dv) {
    add("bn128_s3", StagedAttentionShape<T, 192, 128, 128, 3>{});
    add("bn64_s6", StagedAttentionShape<T, 192, 128, 64, 6>{});
  } else if (dqk == 64) {
    add("bn128_s8", StagedAttentionShape<T, 64, 64, 128, 8>{});
    add("bn64_s12", StagedAttentionShape<T, 64, 64, 64, 12>{});
    add_overlapped("bn128_s8_overlap", StagedAttentionShape<T, 64, 64, 128, 8, true>{});
  } else if (dqk == 256) {
    add("bn64_s4", StagedAttentionShape<T, 256, 256, 64, 4>{});
  } else {
    add("bn128_s6", StagedAttentionShape<T, 128, 128, 128, 6>{});
    add("bn64_s8", StagedAttentionShape<T, 128, 128, 64, 8>{});
    add_overlapped("bn128_s5_overlap", StagedAttentionShape<T, 128, 128, 128, 5, true>{});
  }
  return configs;
}

// The copy engine's maps of Q, K and V planes for a shape: K's and Q's columns past DV in maps of their own.
template <class Shape, class T>
kernels::StagedAttentionInputs<Shape> staged_inputs(const tile::View3<const T>& q, const tile::View3<const T>& k,
                                                    const tile::View3<const T>& v) {
  kernels::StagedAttentionInputs<Shape> in;
  in.q = tile::active::make_tma_tensor<Shape::bm, Shape::dv>(q);
  in.k = tile::active::make_tma_tensor<Shape::bn, Shape::dv>(k);
  in.v = tile::active::make_tma_tensor<Shape::bn, Shape::dv>(v);
  if constexpr (Shape::rest > 0) {
    in.q_rest = tile::active::make_tma_tensor<Shape::bm, Shape::rest>(q);
    in.k_rest = tile::active::make_tma_tensor<Shape::bn, Shape::rest>(k);
  }
  return in;
}

#if defined(__CUDACC__)
constexpr auto kTuneWhere = at::Where::cuda;
#else
constexpr auto kTuneWhere = at::Where::host;
#endif
}  // namespace

// Runs fmha on the staged kernel and returns true, or returns false (nothing launched) where it does not apply.
// o is out_scale times the attention.
bool fmha_staged(const FmhaArgs& a, const dispatch::Options& opt, float out_scale) {
  if (!staged_applies(a.q, a.v, a.k.size(2))) return false;
  // The kernel numbers its work items (query tiles of every head) in 32 bits.
  constexpr int64_t bm = kernels::kStagedQueryRows;
  if (a.q.size(0) * a.q.size(1) * ((a.q.size(2) + bm - 1) / bm) > INT32_MAX) return false;
  bool launched = false;
  visit_float_dtype(a.q.dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (sizeof(T) == 2) {
      tile::View3<const T> q_planes, k_planes, v_planes;
      if (!batch_head_planes(a.q, q_planes) || !batch_head_planes(a.k, k_planes) || !batch_head_planes(a.v, v_planes))
        return;
      const int64_t B = a.q.size(0), Hq = a.q.size(1), Sq = a.q.size(2), dqk = a.q.size(3), dv = a.v.size(3);
      auto launch = [&a, &opt, q_planes, k_planes, v_planes, B, Hq, Sq, out_scale](auto shape, bool persistent) {
        using Shape = decltype(shape);
        using K = kernels::FmhaStaged<T, Shape::d, Shape::dv, Shape::bn, Shape::Pipe::stages, Shape::overlap_items>;
        typename K::Params p{};
        p.out_scale = out_scale;
        p.in = staged_inputs<Shape>(q_planes, k_planes, v_planes);
        p.o = as_view<T, 4>(a.o);
        p.has_lse = !is_absent(a.lse);
        if (p.has_lse) p.lse = with_unit_column<float, 4>(a.lse, {0, 1, 2});
        p.kv_heads = a.k.size(1);
        p.group = Hq / a.k.size(1);
        p.mask = staged_mask(a.params);
        tile::View3<const T> o_planes;
        p.o_by_copy_engine = batch_head_planes(a.o, o_planes) && tile::tma_store_compatible(o_planes);
        if (p.o_by_copy_engine) p.o_boxes = tile::active::make_tma_tensor<16, 128 / sizeof(T)>(o_planes);
        // A head's query tiles one after another (causal: heaviest first, query_tile_row), so that the blocks
        // running at once share its keys and values in L2. Causal items in weight order across heads instead
        // (every head's heaviest tile, then every head's next) read each head's keys once per query tile from
        // memory: 16 x 16 x 1k x 128 causal ran at 0.61x cuDNN on an H100 that way (0.78x on an H200; session 37).
        // Persistent causal grids take the query tiles in pairs of about equal work (FmhaStaged).
        const int64_t q_tiles = (Sq + Shape::bm - 1) / Shape::bm;
        p.items = {q_tiles, B * Hq, q_tiles, 1, 1};
        p.paired_items = persistent && p.mask.causal;
        const int64_t items = p.items.count();
        const int64_t runs = p.paired_items ? (items + 1) / 2 : items;
        tile::active::launch<K>({persistent ? tile::active::persistent_blocks<K>(runs) : items}, p, opt.stream);
      };
      const auto configs = staged_configs<T>(dqk, dv, launch, true);
      const auto key = staged_tune_key("fmha", a.q.dtype(), dqk, dv, B * Hq, Sq, a.k.size(2), a.params);
      at::select(key, configs, 0, opt.stream, kTuneWhere).launch();
      launched = true;
    }
  });
  return launched;
}

// The same for the packed form: q [Tq, Hq, D], k and v [Tk, Hkv, D] read as Hkv planes [Tk, D].
bool fmha_varlen_staged(const FmhaVarlenArgs& a, const dispatch::Options& opt) {
  if (!staged_applies(a.q, a.v, a.k.size(0))) return false;
  bool launched = false;
  visit_float_dtype(a.q.dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (sizeof(T) == 2) {
      tile::View3<const T> q_planes, k_planes, v_planes;
      if (!as_planes(a.q, a.q.size(1), a.q.stride(1), 0, q_planes) ||
          !as_planes(a.k, a.k.size(1), a.k.stride(1), 0, k_planes) ||
          !as_planes(a.v, a.v.size(1), a.v.stride(1), 0, v_planes))
        return;
      const int64_t Tq = a.q.size(0), Hq = a.q.size(1), B = a.cu_q.size(0) - 1, dqk = a.q.size(2), dv = a.v.size(2);
      auto launch = [&a, &opt, q_planes, k_planes, v_planes, Tq, Hq, B](auto shape, bool /*persistent: not offered*/) {
        using Shape = decltype(shape);
        using K = kernels::FmhaStagedVarlen<T, Shape::d, Shape::dv, Shape::bn, Shape::Pipe::stages>;
        typename K::Params p{};
        // K's own shape: an overlapped shape instantiates this launch, but is never offered here.
        p.in = staged_inputs<typename K::Shape>(q_planes, k_planes, v_planes);
        p.o = permuted<T, 3>(a.o, {1, 0, 2});
        p.has_lse = !is_absent(a.lse);
        if (p.has_lse) p.lse = with_unit_column<float, 3>(a.lse, {1, 0});
        p.cu_q = as_view<const int32_t, 1>(a.cu_q);
        p.cu_k = as_view<const int32_t, 1>(a.cu_k);
        p.group = Hq / a.k.size(1);
        p.mask = staged_mask(a.params);
        tile::active::launch<K>({(Tq + Shape::bm - 1) / Shape::bm, Hq, B + 1}, p, opt.stream);
      };
      const auto configs = staged_configs<T>(dqk, dv, launch);
      const int64_t batch = std::max<int64_t>(B, 1);
      const auto key = staged_tune_key("fmha_varlen", a.q.dtype(), dqk, dv, Hq, Tq / batch, a.k.size(0) / batch, a.params);
      at::select(key, configs, 0, opt.stream, kTuneWhere).launch();
      launched = true;
    }
  });
  return launched;
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
