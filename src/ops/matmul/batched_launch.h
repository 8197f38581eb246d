// Launchers of bmm and group_gemm, compiled once per tile backend (batched_host.cpp and batched_cuda.cu include
// this file). Both run the generic kernel's default 64 x 64 x 32 tile: one configuration per dtype keeps the
// CUDA build small. On the GPU, bmm's larger problems run as one matmul each instead (bmm_as_matmuls).
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

#if defined(__CUDACC__)
namespace {
// Matrix i of a [B, R, C] tensor (any strides; a batch stride of 0 repeats one matrix).
Tensor matrix(const Tensor& t, int64_t i) {
  return Tensor::view(static_cast<char*>(t.data()) + i * t.stride(0) * int64_t(dtype_size(t.dtype())), {t.size(1), t.size(2)},
                      t.dtype(), t.device(), {t.stride(1), t.stride(2)});
}

// Problems of at least 2^25 multiply-adds each run one after another on the matmul kernels (tuned; staged on
// Hopper): the batched generic kernel runs at 6-7 TFLOP/s on an H100 (10 us for 2^25), a matmul call costs
// about 10 us of host time (64 x 512^3: 620 us this way, 2,549 us on the generic kernel, 43 us in cuBLAS's
// strided batched kernel; 8 x 2048^3: 215 us, 19,924, 195).
bool bmm_as_matmuls(const BmmArgs& a, const dispatch::Options& opt) {
  const int64_t batch = a.c.size(0), m = a.c.size(1), n = a.c.size(2), k = a.a.size(2);
  if (m * n * k < (int64_t(1) << 25)) return false;
  for (int64_t i = 0; i < batch; ++i) {
    MatmulArgs one{matrix(a.a, i), matrix(a.b, i), matrix(a.c, i), a.b_layout, a.epilogue};
    if (a.epilogue.residual.data() != nullptr) one.epilogue.residual = matrix(a.epilogue.residual, i);
    matmul(one, opt);
  }
  return true;
}
}  // namespace
#endif

void bmm(const BmmArgs& a, const dispatch::Options& opt) {
#if defined(__CUDACC__)
  if (bmm_as_matmuls(a, opt)) return;
#endif
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
