// Launchers of the matmul family, compiled once per tile backend.
//
// The generic kernel in a few tile shapes, chosen per problem by the autotuner (dispatch/autotune.h) on
// tile-cuda and by the heuristic below on the host. Each configuration is a template instantiation per dtype
// and layout, so only the hot case has a choice: 16-bit inputs and outputs with B as [N, K] (y = x @ w^T, the
// layout of every LLM projection). Every other case runs the default 64 x 64 x 32 tile.
//
//   name               tile (M x N x K)  why
//   bm64_bn64_bk32     64 x 64 x 32      the balanced default: enough blocks for mid-sized problems
//   bm128_bn64_bk32    128 x 64 x 32     large M: reads each B tile for twice the rows, fewer blocks
//   bm32_bn128_bk32    32 x 128 x 32     small M (decode, M <= 32): less padding wasted in M, wide in N
#pragma once
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ops/common/views.h"
#include "ops/matmul/args.h"
#include "ops/matmul/matmul.tile.h"
#include "tessera/dispatch/autotune.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
struct MatmulTile { int bm, bn, bk; };

template <class T, class TO, bool B_KN, MatmulTile CFG>
void launch_matmul(const MatmulArgs& a, const dispatch::Options& opt) {
  using K = kernels::Matmul<T, TO, B_KN, CFG.bm, CFG.bn, CFG.bk, 256>;
  typename K::Params p{};
  p.a = as_rows<const T>(a.a);
  p.b = as_rows<const T>(a.b);
  p.c = as_rows<TO>(a.c);
  const auto& e = a.epilogue;
  p.epilogue = {int32_t(e.activation), e.alpha, e.bias.data() != nullptr, e.residual.data() != nullptr};
  if (p.epilogue.has_bias) p.bias = as_rows<const T>(e.bias.reshape({1, e.bias.numel()}));
  if (p.epilogue.has_residual) p.residual = as_rows<const TO>(e.residual);
  const int64_t m = p.c.extent[0], n = p.c.extent[1];
  tile::active::launch<K>({(m + CFG.bm - 1) / CFG.bm, (n + CFG.bn - 1) / CFG.bn}, p, opt.stream);
}

constexpr MatmulTile kTile64x64{64, 64, 32}, kTile128x64{128, 64, 32}, kTile32x128{32, 128, 32};

// The heuristic choice among the tuned configurations (indices into the candidate list below).
// Small M is memory-bound on the weights: what matters is enough blocks in flight to stream them, so the wide
// 32 x 128 tile only when it still gives about two blocks per SM of a large GPU. Large M is compute-bound: the
// taller tile halves the B traffic per flop once there are several waves of blocks.
size_t matmul_heuristic(int64_t m, int64_t n) {
  if (m <= 32) return (n + 127) / 128 >= 256 ? 2 : 0;
  const int64_t blocks_128 = (m + 127) / 128 * ((n + 63) / 64);
  if (m >= 256 && blocks_128 >= 512) return 1;
  return 0;
}

// Whether re-running the call gives the same result: not when the output is also an input (a residual or
// an operand aliased to c), since tuning runs the kernel several times.
bool matmul_is_idempotent(const MatmulArgs& a) {
  auto span = [](const Tensor& t) {
    const auto* lo = static_cast<const char*>(t.data());
    int64_t last = 0;
    for (int d = 0; d < t.ndim(); ++d) last += (t.size(d) - 1) * t.stride(d);
    return std::pair{lo, lo + (last + 1) * int64_t(dtype_size(t.dtype()))};
  };
  auto overlaps = [&](const Tensor& x, const Tensor& y) {
    if (!x.data() || !y.data() || x.numel() == 0 || y.numel() == 0) return false;
    const auto [x0, x1] = span(x);
    const auto [y0, y1] = span(y);
    return x0 < y1 && y0 < x1;
  };
  return !overlaps(a.c, a.a) && !overlaps(a.c, a.b) && !overlaps(a.c, a.epilogue.residual) &&
         !overlaps(a.c, a.epilogue.bias);
}

template <class T>
void launch_tuned(const MatmulArgs& a, const dispatch::Options& opt) {
  namespace at = dispatch::autotune;
  const std::vector<at::Candidate> candidates = {
      {"bm64_bn64_bk32", [&] { launch_matmul<T, T, false, kTile64x64>(a, opt); }},
      {"bm128_bn64_bk32", [&] { launch_matmul<T, T, false, kTile128x64>(a, opt); }},
      {"bm32_bn128_bk32", [&] { launch_matmul<T, T, false, kTile32x128>(a, opt); }},
  };
  const int64_t n = a.c.size(-1), k = a.a.size(-1), m = a.c.numel() / n;
#if defined(__CUDACC__)
  constexpr bool on_gpu = true;
#else
  constexpr bool on_gpu = false;
#endif
  const at::Candidate& c = at::select(matmul_tune_key(a.a.dtype(), m, n, k), candidates, matmul_heuristic(m, n),
                                      opt.stream, on_gpu ? at::Where::cuda : at::Where::host, matmul_is_idempotent(a));
  c.launch();
}

template <class T, class TO>
void launch_layout(const MatmulArgs& a, const dispatch::Options& opt) {
  if constexpr (std::is_same_v<T, TO> && sizeof(T) == 2) {
    if (a.b_layout == BLayout::nk) return launch_tuned<T>(a, opt);
  }
  if (a.b_layout == BLayout::kn) launch_matmul<T, TO, true, kTile64x64>(a, opt);
  else launch_matmul<T, TO, false, kTile64x64>(a, opt);
}
}  // namespace

void matmul(const MatmulArgs& a, const dispatch::Options& opt) {
  visit_float_dtype(a.a.dtype(), [&](auto t) {
    using T = decltype(t);
    if (a.c.dtype() == DType::f32) launch_layout<T, float>(a, opt);
    else launch_layout<T, T>(a, opt);
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
