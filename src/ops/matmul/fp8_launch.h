// Launcher of matmul_fp8, compiled once per tile backend (fp8_host.cpp and fp8_cuda.cu include this file).
//
// Where the copy engine can read the operands (rows of whole 16-byte pieces, 16-byte aligned; on the GPU a
// Hopper GPU) the matmul kernels run on the e4m3 tiles themselves, the scales as the epilogue's alpha
// (staged_launch.h):
//   staged_bm128_bn128   128 x 128 x 128 tiles, 6 stages, 2 consumers: M > 64
//   staged_bm64_bn128     64 x 128 x 128, 8 stages, 1 consumer: M <= 64 (decode), K split to fill the GPU
// (the products summed two stages at a time apart, then added in fp32, which takes a second accumulator's
// registers: no 128 x 256 tile; see matmul_staged.tile.h)
//   rows1_bn2_x2         one activation row on the CUDA cores: 2 x 2048 weight tiles, 2 in flight (the
//   rows1_bn4_x2         16-bit rows1_bn4_x2's registers), 4 x 2048 (its bytes in flight), or 1 x 2048, 4
//   rows1_bn1_x4         in flight
//   rows4_bn1_x2         2-4 rows
// chosen by the autotuner on the GPU (the heuristic's choice on the host). The tensor cores take fp8 at twice
// the 16-bit rate; a decode matmul reads half the bytes of its 16-bit weights.
// Anything else runs the generic 64 x 64 x 32 tile on the CPU, one instantiation per output dtype, and on the
// GPU widens the operands to 16 bits in scratch for the 16-bit matmul (widened_fp8).
#pragma once
#include <string>
#include <vector>

#include "ops/common/views.h"
#include "ops/common/widen_fp8.h"
#include "ops/matmul/args.h"
#include "ops/matmul/matmul_fp8.tile.h"
#include "ops/matmul/staged_launch.h"
#include "tessera/dispatch/autotune.h"

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

// Whether the fp8 matmul kernels can take the call: K > 0, both operands' rows read by the copy engine.
bool fp8_staged_fits(const MatmulFp8Args& a) {
  if (a.a.size(-1) == 0) return false;
  for (const Tensor* t : {&a.a, &a.b})
    if (!tile::tma_compatible(as_rows<const fp8_e4m3>(*t))) return false;
#if defined(__CUDACC__)
  if (!tile::cuda::device_is_hopper()) return false;
#endif
  return true;
}

// The product as a matmul call of the shared launchers: B as [N, K], the scales as alpha.
MatmulArgs as_matmul(const MatmulFp8Args& a) {
  MatmulArgs m{a.a, a.b, a.c, BLayout::nk, {}};
  m.epilogue.alpha = a.scale;
  return m;
}

template <class TO>
void launch_fp8_tuned(const MatmulFp8Args& fp8, const dispatch::Options& opt) {
  namespace at = dispatch::autotune;
  using E = fp8_e4m3;
  const MatmulArgs a = as_matmul(fp8);
  const int64_t n = a.c.size(-1), k = a.a.size(-1), m = a.c.numel() / n;
  constexpr auto coop = tile::Consumers::cooperative;
  std::vector<at::Candidate> candidates = {
      {"staged_bm128_bn128", [&] { launch_staged<E, TO, 128, 128, 6, 2, coop, 1, true>(a, opt); }},
      {"staged_bm64_bn128", [&] { launch_staged<E, TO, 64, 128, 8, 1, coop, 1, true>(a, opt); }}};
  size_t heuristic = m <= 64 ? 1 : 0;
  if (m == 1) {
    heuristic = candidates.size();
    candidates.push_back({"rows1_bn2_x2", [&] { launch_few_rows_m<E, TO, 1, 2, 2, 4>(a, opt); }});
    candidates.push_back({"rows1_bn4_x2", [&] { launch_few_rows_m<E, TO, 1, 4, 2, 3>(a, opt); }});
    candidates.push_back({"rows1_bn1_x4", [&] { launch_few_rows_m<E, TO, 1, 1, 4, 5>(a, opt); }});
  } else if (m <= kMatmulFewRows) {
    candidates.push_back({"rows4_bn1_x2", [&] { launch_few_rows_m<E, TO, 4, 1, 2>(a, opt); }});
  }
#if defined(__CUDACC__)
  constexpr auto where = at::Where::cuda;
#else
  constexpr auto where = at::Where::host;
#endif
  std::string dtype = "e4m3_" + std::string(dtype_name(a.c.dtype()));
  if (m <= kMatmulFewRows) dtype += "_rows";
  const at::Key key =
      at::make_key("matmul_fp8", dtype, at::shape_class({{"m", at::pow2_bucket(m)}, {"n", n}, {"k", k}}));
  candidates[at::select_index(key, candidates, heuristic, opt.stream, where)].launch();
}
}  // namespace

void matmul_fp8(const MatmulFp8Args& a, const dispatch::Options& opt) {
  if (fp8_staged_fits(a)) {
    visit_float_dtype(a.c.dtype(), [&](auto t) { launch_fp8_tuned<decltype(t)>(a, opt); });
    return;
  }
#if defined(__CUDACC__)
  // Widened in scratch to c's type when it is 16-bit (matmul's inputs and output share one), else to bf16.
  auto run = [&](auto t) {
    using T = decltype(t);
    MatmulArgs m{widened_fp8<T>("matmul_fp8.a", a.a, opt), widened_fp8<T>("matmul_fp8.b", a.b, opt), a.c, BLayout::nk, {}};
    m.epilogue.alpha = a.scale;  // c's leading dims fold into a's rows
    matmul(m, opt);
  };
  if (a.c.dtype() == DType::f16) run(f16{});
  else run(bf16{});
#else
  visit_float_dtype(a.c.dtype(), [&](auto t) { launch_matmul_fp8<decltype(t)>(a, opt); });
#endif
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
