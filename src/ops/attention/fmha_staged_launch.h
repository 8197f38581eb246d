// The launcher of the staged prefill attention (fmha_staged.tile.h), compiled once per tile backend
// (fmha_staged_host.cpp, fmha_staged_cuda.cu): its own translation units keep the heavy attention TU from
// growing. On the GPU it runs on Hopper only.
//
//   head dim   keys per tile   stages   shared memory
//   64         128             4        4 x 32 KiB
//   128        128             2        2 x 64 KiB
// Other head dims, Dqk != Dv, 32-bit inputs and K/V that the copy engine cannot read as [B * Hkv, Sk, D] planes
// (16-byte aligned rows, heads evenly spaced) take the generic kernel.
#pragma once
#include "ops/attention/args.h"
#include "ops/attention/fmha_staged.tile.h"
#include "ops/common/views.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
// A [..., S, H, D]-shaped tensor's rows of head h as planes: [planes, rows, D] with the given plane and row
// dims, when the copy engine can read them.
template <class T>
bool as_planes(const Tensor& t, int64_t planes, int64_t plane_stride, int row_dim, tile::View3<const T>& out) {
  const int last = t.ndim() - 1;
  out.data = static_cast<const T*>(t.data());
  out.extent[0] = planes;
  out.extent[1] = t.size(row_dim);
  out.extent[2] = t.size(last);
  out.stride[0] = plane_stride;
  out.stride[1] = t.stride(row_dim);
  out.stride[2] = t.stride(last);
  return tile::tma_compatible(out);
}

// K or V [B, Hkv, Sk, D] as B * Hkv planes [Sk, D]: when batches are evenly spaced heads apart.
template <class T>
bool batch_head_planes(const Tensor& t, tile::View3<const T>& out) {
  return t.stride(0) == t.size(1) * t.stride(1) && as_planes(t, t.size(0) * t.size(1), t.stride(1), 2, out);
}

bool staged_applies(const Tensor& q, const Tensor& v, int64_t keys) {
  const bool sixteen_bit = q.dtype() == DType::bf16 || q.dtype() == DType::f16;
  const int64_t d = q.size(-1);
  if (!sixteen_bit || v.size(-1) != d || (d != 64 && d != 128) || keys == 0) return false;
#if defined(__CUDACC__)
  if (!tile::cuda::device_is_hopper()) return false;
#endif
  return true;
}

// Calls f(T, config) for the configuration of the head dim: (64, 128 keys, 4 stages) or (128, 128 keys, 2).
template <class F>
bool visit_staged_config(DType dtype, int64_t d, F&& f) {
  bool launched = false;
  visit_float_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    if constexpr (sizeof(T) == 2) {
      if (d == 64) launched = f(kernels::StagedAttentionShape<T, 64, 128, 4>{});
      else launched = f(kernels::StagedAttentionShape<T, 128, 128, 2>{});
    }
  });
  return launched;
}

kernels::MaskParams staged_mask(const AttentionParams& p) {
  return {p.causal, p.window_left, kernels::Logits{p.scale, p.softcap}};
}

}  // namespace

// Runs fmha on the staged kernel and returns true, or returns false (nothing launched) where it does not apply.
bool fmha_staged(const FmhaArgs& a, const dispatch::Options& opt) {
  if (!staged_applies(a.q, a.v, a.k.size(2))) return false;
  return visit_staged_config(a.q.dtype(), a.q.size(3), [&](auto shape) {
    using Shape = decltype(shape);
    using T = typename Shape::value_type;
    using K = kernels::FmhaStaged<T, Shape::d, Shape::bn, Shape::Pipe::stages>;
    tile::View3<const T> k_planes, v_planes;
    if (!batch_head_planes(a.k, k_planes) || !batch_head_planes(a.v, v_planes)) return false;
    typename K::Params p{};
    p.q = as_view<const T, 4>(a.q);
    p.o = as_view<T, 4>(a.o);
    p.has_lse = !is_absent(a.lse);
    if (p.has_lse) p.lse = with_unit_column<float, 4>(a.lse, {0, 1, 2});
    p.k = tile::active::make_tma_tensor<Shape::bn, Shape::d>(k_planes);
    p.v = tile::active::make_tma_tensor<Shape::bn, Shape::d>(v_planes);
    p.kv_heads = a.k.size(1);
    p.group = a.q.size(1) / a.k.size(1);
    p.mask = staged_mask(a.params);
    const int64_t B = a.q.size(0), Hq = a.q.size(1), Sq = a.q.size(2);
    tile::active::launch<K>({(Sq + Shape::bm - 1) / Shape::bm, Hq, B}, p, opt.stream);
    return true;
  });
}

// The same for the packed form: q [Tq, Hq, D], k and v [Tk, Hkv, D] read as Hkv planes [Tk, D].
bool fmha_varlen_staged(const FmhaVarlenArgs& a, const dispatch::Options& opt) {
  if (!staged_applies(a.q, a.v, a.k.size(0))) return false;
  return visit_staged_config(a.q.dtype(), a.q.size(2), [&](auto shape) {
    using Shape = decltype(shape);
    using T = typename Shape::value_type;
    using K = kernels::FmhaStagedVarlen<T, Shape::d, Shape::bn, Shape::Pipe::stages>;
    tile::View3<const T> k_planes, v_planes;
    if (!as_planes(a.k, a.k.size(1), a.k.stride(1), 0, k_planes) || !as_planes(a.v, a.v.size(1), a.v.stride(1), 0, v_planes))
      return false;
    typename K::Params p{};
    p.q = permuted<const T, 3>(a.q, {1, 0, 2});
    p.o = permuted<T, 3>(a.o, {1, 0, 2});
    p.has_lse = !is_absent(a.lse);
    if (p.has_lse) p.lse = with_unit_column<float, 3>(a.lse, {1, 0});
    p.cu_q = as_view<const int32_t, 1>(a.cu_q);
    p.cu_k = as_view<const int32_t, 1>(a.cu_k);
    p.k = tile::active::make_tma_tensor<Shape::bn, Shape::d>(k_planes);
    p.v = tile::active::make_tma_tensor<Shape::bn, Shape::d>(v_planes);
    p.group = a.q.size(1) / a.k.size(1);
    p.mask = staged_mask(a.params);
    const int64_t Tq = a.q.size(0), Hq = a.q.size(1), B = a.cu_q.size(0) - 1;
    tile::active::launch<K>({(Tq + Shape::bm - 1) / Shape::bm, Hq, B + 1}, p, opt.stream);
    return true;
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
