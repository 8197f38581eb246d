// Launcher of matmul_fp8, compiled once per tile backend (fp8_host.cpp and fp8_cuda.cu include this file):
// the 64 x 64 x 32 tile only, one instantiation per output dtype.
#pragma once
#include "ops/common/views.h"
#include "ops/matmul/args.h"
#include "ops/matmul/matmul_fp8.tile.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
template <class TO>
void launch_matmul_fp8(const MatmulFp8Args& a, const dispatch::Options& opt) {
  constexpr int BM = 64, BN = 64, BK = 32;
  using K = kernels::MatmulFp8<TO, BM, BN, BK, 256>;
  typename K::Params p{};
  p.a = as_rows<const fp8_e4m3>(a.a);
  p.b = as_rows<const fp8_e4m3>(a.b);
  p.c = as_rows<TO>(a.c);
  p.scale = a.scale;
  const int64_t m = p.c.extent[0], n = p.c.extent[1];
  tile::active::launch<K>({(m + BM - 1) / BM, (n + BN - 1) / BN}, p, opt.stream);
}
}  // namespace

void matmul_fp8(const MatmulFp8Args& a, const dispatch::Options& opt) {
  visit_float_dtype(a.c.dtype(), [&](auto t) { launch_matmul_fp8<decltype(t)>(a, opt); });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
