// Launchers of the matmul family, compiled once per tile backend.
// One configuration for now: 64 x 64 output tiles, 32-wide k slices, 256 threads. The tensor-core paths of
// the tile library and the autotuner's configuration space come with the Hopper work.
#pragma once
#include "ops/common/views.h"
#include "ops/matmul/args.h"
#include "ops/matmul/matmul.tile.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
template <class T, class TO, bool B_KN>
void launch_matmul(const MatmulArgs& a, const dispatch::Options& opt) {
  constexpr int BM = 64, BN = 64, BK = 32;
  using K = kernels::Matmul<T, TO, B_KN, BM, BN, BK, 256>;
  typename K::Params p{};
  p.a = as_rows<const T>(a.a);
  p.b = as_rows<const T>(a.b);
  p.c = as_rows<TO>(a.c);
  const auto& e = a.epilogue;
  p.epilogue = {int32_t(e.activation), e.alpha, e.bias.data() != nullptr, e.residual.data() != nullptr};
  if (p.epilogue.has_bias) p.bias = as_rows<const T>(e.bias.reshape({1, e.bias.numel()}));
  if (p.epilogue.has_residual) p.residual = as_rows<const TO>(e.residual);
  const int64_t m = p.c.extent[0], n = p.c.extent[1];
  tile::active::launch<K>({(m + BM - 1) / BM, (n + BN - 1) / BN}, p, opt.stream);
}

template <class T, class TO>
void launch_layout(const MatmulArgs& a, const dispatch::Options& opt) {
  if (a.b_layout == BLayout::kn) launch_matmul<T, TO, true>(a, opt);
  else launch_matmul<T, TO, false>(a, opt);
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
