// Launchers of bmm and group_gemm, compiled once per tile backend (batched_host.cpp and batched_cuda.cu include
// this file).
// The staged kernels (batched_staged.tile.h; on the GPU only on Hopper) take the calls the copy engine can
// read: 16-bit inputs and outputs of the same dtype, B as [N, K], 16-byte aligned rows and problems:
//   bmm          128 x 128 tiles, 5 stages, 2 consumers (the matmul's staged_bm128_bn128), c through the copy
//                engine where it can write it
//   group_gemm   the same; 128 x 256 tiles, 4 stages, 2 consumers where 128 x 256 tiles of all the rows would
//                fill the GPU; 64 x 128 tiles, 8 stages, 1 consumer where problems average 96 rows or fewer
//                (experts at decode see a few tokens each: half the rows of padding)
// Every other call runs the generic kernel's 64 x 64 x 32 tile: one configuration per dtype keeps the CUDA
// build small. On the GPU, bmm's larger problems run as one matmul each where one fills the GPU, where the
// batch's tiles alone would leave multiprocessors idle (the matmul cuts K), or where the staged kernel cannot
// take them (bmm_as_matmuls).
#pragma once
#include <algorithm>

#include "ops/common/views.h"
#include "ops/matmul/args.h"
#include "ops/matmul/batched.tile.h"
#include "ops/matmul/batched_staged.tile.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
constexpr int kBatchedBm = 64, kBatchedBn = 64, kBatchedBk = 32, kBatchedThreads = 128;

int64_t tiles(int64_t extent, int64_t tile) { return (extent + tile - 1) / tile; }

// A bmm kernel's epilogue: the bias [N] broadcast over every output row (a zero row stride), the residual.
template <class T, class TO, class Params>
void fill_bmm_epilogue(Params& p, const Epilogue& e, int64_t m, int64_t n) {
  p.epilogue = {int32_t(e.activation), e.alpha, e.bias.data() != nullptr, e.residual.data() != nullptr};
  if (p.epilogue.has_bias) {
    p.bias.data = static_cast<const T*>(e.bias.data());
    p.bias.extent[0] = m; p.bias.extent[1] = n;
    p.bias.stride[0] = 0; p.bias.stride[1] = 1;
  }
  if (p.epilogue.has_residual) p.residual = as_view<const TO, 3>(e.residual);
}

template <class T, class TO, bool B_KN>
void launch_bmm(const BmmArgs& a, const dispatch::Options& opt) {
  using K = kernels::Bmm<T, TO, B_KN, kBatchedBm, kBatchedBn, kBatchedBk, kBatchedThreads>;
  typename K::Params p{};
  p.a = as_view<const T, 3>(a.a);
  p.b = as_view<const T, 3>(a.b);
  p.c = as_view<TO, 3>(a.c);
  const int64_t batch = p.c.extent[0], m = p.c.extent[1], n = p.c.extent[2];
  fill_bmm_epilogue<T, TO>(p, a.epilogue, m, n);
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

// ---- the staged kernels ----

// b as a stack of planes for the copy engine: one plane when its batch stride is 0.
template <class T>
tile::View3<const T> planes(const Tensor& b, bool& shared) {
  tile::View3<const T> v = as_view<const T, 3>(b);
  shared = v.stride[0] == 0;
  if (shared) {
    v.extent[0] = 1;
    v.stride[0] = v.extent[1] * v.stride[1];
  }
  return v;
}

// Whether the staged kernels can take a call: 16-bit inputs, c of their dtype, B as [N, K], K > 0, operands
// the copy engine reads, and (GPU) a Hopper GPU.
bool staged_batched_fits(const Tensor& a, const Tensor& b, const Tensor& c, BLayout b_layout) {
  const bool sixteen_bit = a.dtype() == DType::bf16 || a.dtype() == DType::f16;
  if (!sixteen_bit || c.dtype() != a.dtype() || b_layout != BLayout::nk || a.size(-1) == 0) return false;
  // The copy engine reads 16-byte aligned rows and planes; a's planes one per problem (no batch stride 0), b's
  // possibly one for all.
  const bool a_ok = a.ndim() == 3 ? (a.size(0) == 1 || a.stride(0) != 0) && tile::tma_compatible(as_view<const uint16_t, 3>(a))
                                  : tile::tma_compatible(as_rows<const uint16_t>(a));
  bool b_shared = false;
  if (!a_ok || !tile::tma_compatible(planes<uint16_t>(b, b_shared))) return false;
#if defined(__CUDACC__)
  if (!tile::cuda::device_is_hopper()) return false;
#endif
  return true;
}

constexpr int kStagedBm = 128, kStagedBn = 128, kStagedBk = 64;

template <class T>
void launch_bmm_staged(const BmmArgs& a, const dispatch::Options& opt) {
  using K = kernels::BmmStaged<T, T, kStagedBm, kStagedBn, kStagedBk, 5, 2>;
  typename K::Params p{};
  p.a = tile::active::make_tma_tensor<kStagedBm, kStagedBk>(as_view<const T, 3>(a.a));
  p.b = tile::active::make_tma_tensor<kStagedBn, kStagedBk>(planes<T>(a.b, p.b_shared));
  p.c = as_view<T, 3>(a.c);
  const int64_t batch = p.c.extent[0], m = p.c.extent[1], n = p.c.extent[2], k = a.a.size(2);
  const tile::View3<const T> c_planes = as_view<const T, 3>(a.c);
  p.c_by_copy_engine = tile::tma_store_compatible(c_planes) && (batch == 1 || c_planes.stride[0] != 0);
  if (p.c_by_copy_engine) p.c_boxes = tile::active::make_tma_tensor<16, 128 / sizeof(T)>(c_planes);
  fill_bmm_epilogue<T, T>(p, a.epilogue, m, n);
  p.k_tiles = tiles(k, kStagedBk);
  p.schedule = {tiles(m, kStagedBm), tiles(n, kStagedBn), 8, batch};
  tile::active::launch<K>({tile::active::persistent_blocks<K>(p.schedule.count())}, p, opt.stream);
}

template <class T, int BM, int BN, int STAGES, int CONSUMERS>
void launch_group_gemm_staged(const GroupGemmArgs& a, const dispatch::Options& opt) {
  using K = kernels::GroupGemmStaged<T, T, BM, BN, kStagedBk, STAGES, CONSUMERS>;
  typename K::Params p{};
  p.a = tile::active::make_tma_tensor<BM, kStagedBk>(as_rows<const T>(a.a));
  p.b = tile::active::make_tma_tensor<BN, kStagedBk>(as_view<const T, 3>(a.b));
  p.c = as_rows<T>(a.c);
  auto& s = p.problems;
  s.offsets_i64 = a.offsets.dtype() == DType::i64;
  if (s.offsets_i64) s.offsets64 = as_view<const int64_t, 1>(a.offsets);
  else s.offsets32 = as_view<const int32_t, 1>(a.offsets);
  const int64_t groups = a.b.size(0), rows = a.a.size(0), n = a.c.size(1);
  s.problems = groups;
  s.rows = rows;
  s.tile_m = BM;
  s.tile_cols = tiles(n, BN);
  p.k_tiles = tiles(a.a.size(1), kStagedBk);
  // At most a tile of padding per problem: sum over g of ceil(M_g / BM) <= rows / BM + G.
  const int64_t items = (tiles(std::min(rows, groups * a.max_group_rows), BM) + groups) * s.tile_cols;
  tile::active::launch<K>({tile::active::persistent_blocks<K>(items)}, p, opt.stream);
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
// Hopper) where the staged batched kernel cannot take them (the generic kernel runs at 6-7 TFLOP/s on an
// H100: 10 us for 2^25, and a matmul call costs about 10 us of host time; 8 x 2048^3: 215 us this way, 19,924
// on the generic kernel, 195 in cuBLAS's strided batched kernel), where one problem's 128 x 128 tiles fill the
// GPU (then the matmul's tuned tiles win: 8 x 2048^3 took 274 us in the batched kernel, H100), or where the
// whole batch's do not (the matmul cuts K to fill the multiprocessors).
bool bmm_as_matmuls(const BmmArgs& a, const dispatch::Options& opt, bool staged) {
  const int64_t batch = a.c.size(0), m = a.c.size(1), n = a.c.size(2), k = a.a.size(2);
  if (m * n * k < (int64_t(1) << 25)) return false;
  const int64_t problem_tiles = tiles(m, kStagedBm) * tiles(n, kStagedBn), sms = tile::active::multiprocessor_count();
  if (staged && problem_tiles < sms && batch * problem_tiles >= sms) return false;
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
  const bool staged = staged_batched_fits(a.a, a.b, a.c, a.b_layout);
#if defined(__CUDACC__)
  if (bmm_as_matmuls(a, opt, staged)) return;
#endif
  visit_float_dtype(a.a.dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (sizeof(T) == 2) {
      if (staged) return launch_bmm_staged<T>(a, opt);
    }
    const bool kn = a.b_layout == BLayout::kn;
    if (a.c.dtype() == DType::f32) kn ? launch_bmm<T, float, true>(a, opt) : launch_bmm<T, float, false>(a, opt);
    else kn ? launch_bmm<T, T, true>(a, opt) : launch_bmm<T, T, false>(a, opt);
  });
}

void group_gemm(const GroupGemmArgs& a, const dispatch::Options& opt) {
  const bool staged = staged_batched_fits(a.a, a.b, a.c, BLayout::nk);
  const int64_t rows = a.a.size(0), groups = a.b.size(0), n = a.c.size(1);
  const bool short_problems = rows <= 96 * groups;
  // The 128 x 256 tile once the tiles fill the GPU (as the matmul's heuristic).
  const bool wide = tiles(rows, 128) * tiles(n, 256) >= tile::active::multiprocessor_count();
  visit_float_dtype(a.a.dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (sizeof(T) == 2) {
      if (staged && short_problems) return launch_group_gemm_staged<T, 64, 128, 8, 1>(a, opt);
      if (staged && wide) return launch_group_gemm_staged<T, 128, 256, 4, 2>(a, opt);
      if (staged) return launch_group_gemm_staged<T, 128, 128, 5, 2>(a, opt);
    }
    if (a.c.dtype() == DType::f32) launch_group_gemm<T, float>(a, opt);
    else launch_group_gemm<T, T>(a, opt);
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
