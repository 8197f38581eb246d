// Launcher of matmul_fp8, compiled once per tile backend (fp8_host.cpp and fp8_cuda.cu include this file): on the
// CPU the generic 64 x 64 x 32 tile, one instantiation per output dtype; on the GPU bf16 operands in scratch
// and the bf16 matmul.
#pragma once
#include "ops/common/views.h"
#include "ops/matmul/args.h"
#include "ops/elementwise/cast.tile.h"
#include "ops/matmul/matmul_fp8.tile.h"
#include "tessera/runtime/workspace.h"

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

#if defined(__CUDACC__)
namespace {
// x [..., K] widened (exactly: every e4m3 value is an f16 and a bf16 one) to T in scratch `name`, a contiguous
// [rows, K].
template <class T>
Tensor widened_rows(const char* name, const Tensor& x, const dispatch::Options& opt) {
  constexpr int kCols = 2048, kThreads = 256;
  const int64_t k = x.size(-1), rows = x.numel() / k;
  const Tensor y = Tensor::view(workspace(name, size_t(rows * k) * sizeof(T), x.device(), opt.stream), {rows, k},
                                dtype_of<T>::value, x.device());
  using K = kernels::Cast<fp8_e4m3, T, 1, kCols, kThreads>;
  typename K::Params p{};
  p.x = as_rows<const fp8_e4m3>(x);
  p.y = as_rows<T>(y);
  p.col_blocks = (k + kCols - 1) / kCols;
  tile::active::launch<K>({rows * p.col_blocks}, p, opt.stream);
  return y;
}
}  // namespace

// On the GPU the operands are widened in scratch (a pass over 3 bytes an element: to c's type when it is 16-bit,
// matmul's inputs and output sharing one, else to bf16) and the 16-bit matmul runs, its tuned kernels on Hopper,
// the scales as its epilogue's alpha: the generic kernel widening each tile as it loads it ran at 6.7 TFLOP/s on
// an H100 (4096^3: 20.6 ms).
void matmul_fp8(const MatmulFp8Args& a, const dispatch::Options& opt) {
  auto run = [&](auto t) {
    using T = decltype(t);
    MatmulArgs m{widened_rows<T>("matmul_fp8.a", a.a, opt), widened_rows<T>("matmul_fp8.b", a.b, opt), a.c, BLayout::nk, {}};
    m.epilogue.alpha = a.scale;  // c's leading dims fold into a's rows
    matmul(m, opt);
  };
  if (a.c.dtype() == DType::f16) run(f16{});
  else run(bf16{});
}
#else
void matmul_fp8(const MatmulFp8Args& a, const dispatch::Options& opt) {
  visit_float_dtype(a.c.dtype(), [&](auto t) { launch_matmul_fp8<decltype(t)>(a, opt); });
}
#endif

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
