// The launcher of the prefill attention backward (fmha_backward.tile.h), compiled once per tile backend
// (fmha_backward_host.cpp, fmha_backward_cuda.cu). On the GPU it runs on Hopper only.
//
//   head dim   dQ kernel: keys per tile x stages           dK/dV kernel: query rows per tile x stages
//   64         64 x 4; 128 x 3                              64 x 4
//   128        64 x 2 (64 KiB resident + 2 x 32 KiB); 128 x 2  64 x 3 (64 KiB resident + 3 x 32 KiB)
// The autotuner picks between the dQ tiles (the first is the default).
// A first small kernel writes delta = rowsum(dO * O) (fp32, [B, Hq, Sq]) into per-stream scratch, which the
// dQ and dK/dV kernels launched after it on the same stream read. (Computed in the dQ kernel's consumers
// before their loop instead, the kernel hung on an H200, cause not found: see bench/results/2026-11-25-h200-session17.)
#pragma once
#include <string>

#include "ops/attention/args.h"
#include "ops/attention/fmha_backward.tile.h"
#include "ops/attention/planes.h"
#include "ops/common/views.h"
#include "tessera/dispatch/autotune.h"
#include "tessera/runtime/workspace.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
namespace at = dispatch::autotune;
#if defined(__CUDACC__)
constexpr auto kTuneWhere = at::Where::cuda;
#else
constexpr auto kTuneWhere = at::Where::host;
#endif

template <class T, int D, int BN, int DQ_STAGES, int BQ, int DKV_STAGES>
struct BackwardConfig {
  using Dq = kernels::FmhaBackwardDq<T, D, BN, DQ_STAGES>;
  using Dkv = kernels::FmhaBackwardDkv<T, D, BQ, DKV_STAGES>;
  static std::string name() {
    return "dq_bn" + std::to_string(BN) + "_s" + std::to_string(DQ_STAGES) + "_dkv_bq" + std::to_string(BQ) + "_s" +
           std::to_string(DKV_STAGES);
  }
};

// The configurations of a head dim as autotuner candidates, each calling launch(BackwardConfig{}); the first is
// the heuristic default. The dQ kernel's 128-key tiles spill a few registers (4 bytes at D 64, 128 at D 128);
// the dK/dV kernel's 128-row query tiles spill 1.2 KB at D 64 (a full tile each of lse and delta), so they are
// not offered.
template <class T, class F>
std::vector<at::Candidate> backward_configs(int64_t d, const F& launch) {
  auto candidate = [&](auto config) { return at::Candidate{decltype(config)::name(), [=] { launch(config); }}; };
  if (d == 64) return {candidate(BackwardConfig<T, 64, 64, 4, 64, 4>{}), candidate(BackwardConfig<T, 64, 128, 3, 64, 4>{})};
  return {candidate(BackwardConfig<T, 128, 64, 2, 64, 3>{}), candidate(BackwardConfig<T, 128, 128, 2, 64, 3>{})};
}

template <class T, class F>
void visit_delta_kernel(int64_t d, F&& f) {
  if (d == 64) f(kernels::FmhaBackwardDelta<T, 16, 64, 128>{});
  else f(kernels::FmhaBackwardDelta<T, 16, 128, 128>{});
}

// A [B, H, S] tensor as [B, H, 1, S]: one row per head, read across a tile's columns.
template <class T>
tile::View4<T> as_head_rows(const Tensor& t) {
  tile::View4<T> v;
  v.data = static_cast<T*>(t.data());
  v.extent[0] = t.size(0), v.extent[1] = t.size(1), v.extent[2] = 1, v.extent[3] = t.size(2);
  v.stride[0] = t.stride(0), v.stride[1] = t.stride(1), v.stride[2] = 0, v.stride[3] = t.stride(2);
  return v;
}
}  // namespace

dispatch::Refusal fmha_backward_refusal(const FmhaBackwardArgs& a) {
  if (a.q.dtype() != DType::bf16 && a.q.dtype() != DType::f16)
    return "the backward tile kernels take f16 or bf16 inputs, not " + std::string(dtype_name(a.q.dtype()));
  if (a.q.size(2) == 0 || a.k.size(2) == 0) return std::string("an empty sequence has nothing for the kernels to stream");
  const int64_t d = a.q.size(3);
  if (a.v.size(3) != d || (d != 64 && d != 128))
    return "no backward tile kernel for head dims " + std::to_string(d) + " / " + std::to_string(a.v.size(3)) +
           " (64 / 64 and 128 / 128)";
  bool readable = true;
  visit_float_dtype(a.q.dtype(), [&](auto t) {
    using T = decltype(t);
    tile::View3<const T> planes;
    for (const Tensor* x : {&a.q, &a.k, &a.v, &a.d_o}) readable = readable && batch_head_planes(*x, planes);
  });
  if (!readable)
    return std::string("q, k, v and d_o must be readable by the copy engine as [B * H, S, D] planes (16-byte aligned "
                       "rows, batches evenly spaced heads apart)");
#if defined(__CUDACC__)
  if (!tile::cuda::device_is_hopper()) return std::string("the backward tile kernels run on Hopper (sm_90a) only");
#endif
  return std::nullopt;
}

void fmha_backward(const FmhaBackwardArgs& a, const dispatch::Options& opt) {
  const int64_t B = a.q.size(0), Hq = a.q.size(1), Sq = a.q.size(2), d = a.q.size(3);
  const int64_t Hkv = a.k.size(1), Sk = a.k.size(2);
  const std::string scratch = "fmha_backward.delta@" + std::to_string(reinterpret_cast<uintptr_t>(opt.stream));
  const Tensor delta = Tensor::view(workspace(scratch.c_str(), size_t(std::max<int64_t>(B * Hq * Sq, 1)) * sizeof(float),
                                              a.q.device(), opt.stream),
                                    {B, Hq, Sq}, DType::f32, a.q.device());
  const kernels::MaskParams mask{a.params.causal, a.params.window_left, kernels::Logits{a.params.scale, a.params.softcap}};
  visit_float_dtype(a.q.dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (sizeof(T) == 2) {
      tile::View3<const T> q_planes, k_planes, v_planes, do_planes;
      batch_head_planes(a.q, q_planes);
      batch_head_planes(a.k, k_planes);
      batch_head_planes(a.v, v_planes);
      batch_head_planes(a.d_o, do_planes);
      visit_delta_kernel<T>(d, [&](auto kernel) {
        using Delta = decltype(kernel);
        typename Delta::Params p{};
        p.o = as_view<const T, 4>(a.o);
        p.d_o = as_view<const T, 4>(a.d_o);
        p.delta = with_unit_column<float, 4>(delta, {0, 1, 2});
        tile::active::launch<Delta>({(Sq + Delta::rows - 1) / Delta::rows, Hq, B}, p, opt.stream);
      });
      // lse and delta by query row (dQ kernel) and as one row per head (dK/dV kernel).
      const auto lse_by_row = with_unit_column<const float, 4>(a.lse, {0, 1, 2});
      const auto delta_by_row = with_unit_column<const float, 4>(delta, {0, 1, 2});
      const auto lse_by_head = as_head_rows<const float>(a.lse), delta_by_head = as_head_rows<const float>(delta);
      auto launch = [&a, &opt, q_planes, k_planes, v_planes, do_planes, delta_by_row, lse_by_row, lse_by_head, delta_by_head,
                     mask, B, Hq, Hkv, Sq, Sk](auto config) {
        using Dq = typename decltype(config)::Dq;
        using Dkv = typename decltype(config)::Dkv;
        {
          typename Dq::Params p{};
          p.q = tile::active::make_tma_tensor<Dq::bm, Dq::d>(q_planes);
          p.d_o = tile::active::make_tma_tensor<Dq::bm, Dq::d>(do_planes);
          p.k = tile::active::make_tma_tensor<Dq::bn, Dq::d>(k_planes);
          p.v = tile::active::make_tma_tensor<Dq::bn, Dq::d>(v_planes);
          p.lse = lse_by_row;
          p.delta = delta_by_row;
          p.dq = as_view<T, 4>(a.dq);
          p.kv_heads = Hkv;
          p.group = Hq / Hkv;
          p.mask = mask;
          tile::active::launch<Dq>({(Sq + Dq::bm - 1) / Dq::bm, Hq, B}, p, opt.stream);
        }
        {
          typename Dkv::Params p{};
          p.q = tile::active::make_tma_tensor<Dkv::bq, Dkv::d>(q_planes);
          p.d_o = tile::active::make_tma_tensor<Dkv::bq, Dkv::d>(do_planes);
          p.k = tile::active::make_tma_tensor<Dkv::bm, Dkv::d>(k_planes);
          p.v = tile::active::make_tma_tensor<Dkv::bm, Dkv::d>(v_planes);
          p.lse = lse_by_head;
          p.delta = delta_by_head;
          p.dk = as_view<T, 4>(a.dk);
          p.dv = as_view<T, 4>(a.dv);
          p.q_heads = Hq;
          p.group = Hq / Hkv;
          p.mask = mask;
          tile::active::launch<Dkv>({(Sk + Dkv::bm - 1) / Dkv::bm, Hkv, B}, p, opt.stream);
        }
      };
      const std::string kind = std::string(dtype_name(a.q.dtype())) + (a.params.causal ? "_causal" : "") +
                               (a.params.window_left >= 0 ? "_window" : "");
      const auto key = at::make_key("fmha_backward", kind,
                                    at::shape_class({{"d", d}, {"heads", at::pow2_bucket(B * Hq)}, {"group", Hq / Hkv},
                                                     {"rows", at::pow2_bucket(Sq)}, {"keys", at::pow2_bucket(Sk)}}));
      // Every candidate reads only q, k, v, d_o, lse and delta and writes dq, dk and dv: timing them in place is safe.
      at::select(key, backward_configs<T>(d, launch), 0, opt.stream, kTuneWhere).launch();
    }
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
