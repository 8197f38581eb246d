// Launchers of bmm and group_gemm, compiled once per tile backend (batched_host.cpp and batched_cuda.cu include
// this file). Both run the generic kernel's default 64 x 64 x 32 tile and nothing else: one configuration per
// dtype keeps the CUDA build small; tuning them is future work.
#pragma once
#include "ops/common/views.h"
#include "ops/matmul/args.h"
#include "ops/matmul/batched.tile.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
constexpr int kBatchedBm = 64, kBatchedBn = 64, kBatchedBk = 32, kBatchedThreads = 256;

int64_t tiles(int64_t extent, int64_t tile) { return (extent + tile - 1) / tile; }

template <class T, class TO, bool B_KN>
void launch_bmm(const BmmArgs& a, const dispatch::Options& opt) {
  using K = kernels::Bmm<T, TO, B_KN, kBatchedBm, kBatchedBn, kBatchedBk, kBatchedThreads>;
  typename K::Params p{};
  p.a = as_view<const T, 3>(a.a);
  p.b = as_view<const T, 3>(a.b);
  p.c = as_view<TO, 3>(a.c);
  const int64_t batch = p.c.extent[0], m = p.c.extent[1], n = p.c.extent[2];
  const auto& e = a.epilogue;
  p.epilogue = {int32_t(e.activation), e.alpha, e.bias.data() != nullptr, e.residual.data() != nullptr};
  if (p.epilogue.has_bias) {
    // One bias row, broadcast over every output row by a zero row stride.
    p.bias.data = static_cast<const T*>(e.bias.data());
    p.bias.extent[0] = m; p.bias.extent[1] = n;
    p.bias.stride[0] = 0; p.bias.stride[1] = 1;
  }
  if (p.epilogue.has_residual) p.residual = as_view<const TO, 3>(e.residual);
  tile::active::launch<K>({tiles(m, kBatchedBm), tiles(n, kBatchedBn), batch}, p, opt.stream);
}

template <class T, class TO>
void launch_group_gemm(const GroupGemmArgs& a, const dispatch::Options& opt) {
  using K = kernels::GroupGemm<T, TO, kBatchedBm, kBatchedBn, kBatchedBk, kBatchedThreads>;
  typename K::Params p{};
  p.a = as_rows<const T>(a.a);
  p.b = as_view<const T, 3>(a.b);
  p.c = as_rows<TO>(a.c);
  p.offsets_i64 = a.offsets.dtype() == DType::i64;
  if (p.offsets_i64) p.offsets64 = as_view<const int64_t, 1>(a.offsets);
  else p.offsets32 = as_view<const int32_t, 1>(a.offsets);
  const int64_t groups = a.b.size(0), n = a.c.size(1);
  tile::active::launch<K>({tiles(a.max_group_rows, kBatchedBm), tiles(n, kBatchedBn), groups}, p, opt.stream);
}
}  // namespace

void bmm(const BmmArgs& a, const dispatch::Options& opt) {
  visit_float_dtype(a.a.dtype(), [&](auto t) {
    using T = decltype(t);
    const bool kn = a.b_layout == BLayout::kn;
    if (a.c.dtype() == DType::f32) kn ? launch_bmm<T, float, true>(a, opt) : launch_bmm<T, float, false>(a, opt);
    else kn ? launch_bmm<T, T, true>(a, opt) : launch_bmm<T, T, false>(a, opt);
  });
}

void group_gemm(const GroupGemmArgs& a, const dispatch::Options& opt) {
  visit_float_dtype(a.a.dtype(), [&](auto t) {
    using T = decltype(t);
    if (a.c.dtype() == DType::f32) launch_group_gemm<T, float>(a, opt);
    else launch_group_gemm<T, T>(a, opt);
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
