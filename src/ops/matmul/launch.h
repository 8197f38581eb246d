// Launchers of the matmul family, compiled once per tile backend (host.cpp and cuda.cu include this file).
//
// Kernels, by what the call allows:
// - MatmulStaged (the staged tensor-core kernel; on the GPU only on Hopper): bf16/f16 with B as [N, K] and
//   16-byte aligned rows, which the copy engine needs. Tile configurations, by output size:
//     128 x 256, 4 stages, 2 consumer warpgroups: 64 x 256 accumulators per warpgroup (128 registers per
//                thread) is the largest wgmma, the most math per byte of shared memory read; used when it
//                still gives every multiprocessor a tile.
//     128 x 128, 5 stages, 2 consumers: twice the tiles for mid-size problems.
//     64 x 128, 8 stages, 1 consumer, K split over blocks when the tiles alone cannot fill the GPU: for
//                M <= 64 (decode) the weights are streamed once by every multiprocessor, deep stages keep
//                enough bytes in flight, and SplitKReduce adds the fp32 partial sums and runs the epilogue.
// - Matmul (the generic tile kernel): everything else (f32, B as [K, N], unaligned rows, pre-Hopper GPUs).
#pragma once
#include "ops/common/views.h"
#include "tessera/runtime/workspace.h"
#include "ops/matmul/args.h"
#include "ops/matmul/matmul.tile.h"
#include "ops/matmul/matmul_staged.tile.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
template <class T>
tile::View2<const T> bias_rows(const MatmulArgs& a, int64_t m) {
  tile::View2<const T> v{};
  if (!a.epilogue.bias.data()) return v;
  v.data = static_cast<const T*>(a.epilogue.bias.data());
  v.extent[0] = m;
  v.extent[1] = a.epilogue.bias.numel();
  v.stride[0] = 0;
  v.stride[1] = 1;
  return v;
}

template <class K, class T, class TO>
void fill_epilogue(typename K::Params& p, const MatmulArgs& a, int64_t m) {
  const auto& e = a.epilogue;
  p.epilogue = {int32_t(e.activation), e.alpha, e.bias.data() != nullptr, e.residual.data() != nullptr};
  p.bias = bias_rows<T>(a, m);
  if (p.epilogue.has_residual) p.residual = as_rows<const TO>(e.residual);
}

template <class T, class TO, bool B_KN>
void launch_generic(const MatmulArgs& a, const dispatch::Options& opt) {
  constexpr int BM = 64, BN = 64, BK = 32;
  using K = kernels::Matmul<T, TO, B_KN, BM, BN, BK, 256>;
  typename K::Params p{};
  p.a = as_rows<const T>(a.a);
  p.b = as_rows<const T>(a.b);
  p.c = as_rows<TO>(a.c);
  const int64_t m = p.c.extent[0], n = p.c.extent[1];
  fill_epilogue<K, T, TO>(p, a, m);
  tile::active::launch<K>({(m + BM - 1) / BM, (n + BN - 1) / BN}, p, opt.stream);
}

// How many parts to cut K into so that tiles x splits work items fill whole waves of `sms` blocks: the
// split count with the best wave efficiency, the smallest on ties, each part at least 4 slices of K.
int64_t choose_splits(int64_t tiles, int64_t k_tiles, int64_t sms) {
  int64_t best = 1;
  double best_eff = 0;
  for (int64_t s = 1; s <= 16 && (s == 1 || k_tiles / s >= 4); ++s) {
    const int64_t items = tiles * s, waves = (items + sms - 1) / sms;
    const double eff = double(items) / double(waves * sms);
    if (eff > best_eff + 0.02) { best = s; best_eff = eff; }
  }
  return best;
}

template <class T, class TO, int BM, int BN, int STAGES, int CONSUMERS>
void launch_staged(const MatmulArgs& a, const dispatch::Options& opt, bool allow_split) {
  using K = kernels::MatmulStaged<T, TO, BM, BN, 64, STAGES, CONSUMERS>;
  typename K::Params p{};
  p.a = tile::active::make_tma_tensor<BM, K::bk>(as_rows<const T>(a.a));
  p.b = tile::active::make_tma_tensor<BN, K::bk>(as_rows<const T>(a.b));
  p.c = as_rows<TO>(a.c);
  const int64_t m = p.c.extent[0], n = p.c.extent[1], k = a.a.size(-1);
  const int64_t sms = tile::active::multiprocessor_count();
  fill_epilogue<K, T, TO>(p, a, m);
  p.k_tiles = (k + K::bk - 1) / K::bk;
  p.schedule = {(m + BM - 1) / BM, (n + BN - 1) / BN, 8, 1};
  if (allow_split) p.schedule.splits = choose_splits(p.schedule.tiles(), p.k_tiles, sms);
  p.k_tiles_per_split = (p.k_tiles + p.schedule.splits - 1) / p.schedule.splits;
  p.schedule.splits = (p.k_tiles + p.k_tiles_per_split - 1) / p.k_tiles_per_split;  // no empty split
  if (p.schedule.splits > 1) {
    const Device dev = a.c.device();
    auto* partials = static_cast<float*>(workspace("matmul.split_k", size_t(p.schedule.splits * m * n) * sizeof(float), dev));
    p.partials.data = partials;
    p.partials.extent[0] = p.schedule.splits; p.partials.extent[1] = m; p.partials.extent[2] = n;
    p.partials.stride[0] = m * n; p.partials.stride[1] = n; p.partials.stride[2] = 1;
  }
  tile::active::launch<K>({std::min<int64_t>(p.schedule.count(), sms)}, p, opt.stream);
  if (p.schedule.splits == 1) return;
  constexpr int RM = 16, RN = 256;
  using R = kernels::SplitKReduce<T, TO, RM, RN, 256>;
  typename R::Params r{};
  r.partials.data = p.partials.data;
  for (int d = 0; d < 3; ++d) { r.partials.extent[d] = p.partials.extent[d]; r.partials.stride[d] = p.partials.stride[d]; }
  r.bias = p.bias;
  r.residual = p.residual;
  r.c = p.c;
  r.epilogue = p.epilogue;
  tile::active::launch<R>({(m + RM - 1) / RM, (n + RN - 1) / RN}, r, opt.stream);
}

// Whether the staged kernel can take this call: 16-bit inputs, B as [N, K], rows the copy engine can read.
bool staged_fits(const MatmulArgs& a) {
  const bool sixteen_bit = a.a.dtype() == DType::bf16 || a.a.dtype() == DType::f16;
  if (!sixteen_bit || a.b_layout != BLayout::nk || a.a.size(-1) == 0) return false;
  for (const Tensor* t : {&a.a, &a.b}) {
    const auto v = as_rows<const uint16_t>(*t);
    if (v.stride[1] != 1 || reinterpret_cast<uintptr_t>(v.data) % 16 != 0 || (v.stride[0] * 2) % 16 != 0) return false;
  }
#if defined(__CUDACC__)
  if (!tile::cuda::device_is_hopper()) return false;
#endif
  return true;
}

template <class T, class TO>
void launch_typed(const MatmulArgs& a, const dispatch::Options& opt) {
  if constexpr (std::is_same_v<T, bf16> || std::is_same_v<T, f16>) {
    if (staged_fits(a)) {
      const int64_t m = a.c.numel() / a.c.size(-1), n = a.c.size(-1);
      const int64_t big_tiles = ((m + 127) / 128) * ((n + 255) / 256);
      if (m <= 64) launch_staged<T, TO, 64, 128, 8, 1>(a, opt, true);
      else if (big_tiles >= tile::active::multiprocessor_count()) launch_staged<T, TO, 128, 256, 4, 2>(a, opt, false);
      else launch_staged<T, TO, 128, 128, 5, 2>(a, opt, false);
      return;
    }
  }
  if (a.b_layout == BLayout::kn) launch_generic<T, TO, true>(a, opt);
  else launch_generic<T, TO, false>(a, opt);
}
}  // namespace

void matmul(const MatmulArgs& a, const dispatch::Options& opt) {
  visit_float_dtype(a.a.dtype(), [&](auto t) {
    using T = decltype(t);
    if (a.c.dtype() == DType::f32) launch_typed<T, float>(a, opt);
    else launch_typed<T, T>(a, opt);
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
