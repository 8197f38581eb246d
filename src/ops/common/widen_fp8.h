// fp8 e4m3 operands widened to 16 bits in scratch, on the GPU: the staged kernels read 16-bit tiles, so
// matmul_fp8 and fmha_fp8 widen their operands first (exactly: every e4m3 value is an f16 and a bf16 value), a
// pass over three bytes an element. Widening each tile inside the generic kernels instead ran at 6-7 TFLOP/s
// on an H100.
#pragma once
#if defined(__CUDACC__)
#include <type_traits>

#include "ops/common/views.h"
#include "ops/elementwise/cast.tile.h"
#include "tessera/runtime/workspace.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {
namespace {
// t as a stack of matrices [B, H, rows, cols]: its own dims at rank 4, else [1, 1, rows, cols] (as_rows).
template <class E>
tile::View4<E> as_stack(const Tensor& t) {
  if (t.ndim() == 4) return as_view<E, 4>(t);
  const tile::View2<E> rows = as_rows<E>(t);
  tile::View4<E> v;
  v.data = rows.data;
  v.extent[0] = v.extent[1] = 1;
  v.extent[2] = rows.extent[0];
  v.extent[3] = rows.extent[1];
  v.stride[2] = rows.stride[0];
  v.stride[3] = rows.stride[1];
  return v;
}

// x (e4m3, rank 1 to 4) as T in scratch `name`: a contiguous tensor of x's shape. A rank-4 x ([B, H, S, D])
// may have any strides; a lower rank must fold into rows (as_rows).
template <class T>
Tensor widened_fp8(const char* name, const Tensor& x, const dispatch::Options& opt) {
  const Tensor y = Tensor::view(workspace(name, size_t(x.numel()) * sizeof(T), x.device(), opt.stream), x.shape(),
                                dtype_of<T>::value, x.device());
  const tile::View4<const fp8_e4m3> xv = as_stack<const fp8_e4m3>(x);
  auto widen = [&](auto cols) {
    // 8192 elements a block: 128 x 64 for 64-wide heads ... 4 x 2048 for matmul rows.
    constexpr int COLS = decltype(cols)::value, ROWS = 8192 / COLS;
    using K = kernels::CastStack<fp8_e4m3, T, ROWS, COLS, 256>;
    typename K::Params p{xv, as_stack<T>(y), (xv.extent[3] + COLS - 1) / COLS};
    tile::active::launch<K>({(xv.extent[2] + ROWS - 1) / ROWS * p.col_blocks, xv.extent[1], xv.extent[0]}, p, opt.stream);
  };
  const int64_t k = xv.extent[3];
  if (k <= 64) widen(std::integral_constant<int, 64>{});
  else if (k <= 128) widen(std::integral_constant<int, 128>{});
  else if (k <= 256) widen(std::integral_constant<int, 256>{});
  else widen(std::integral_constant<int, 2048>{});
  return y;
}
}  // namespace
}  // namespace tessera::ops::TESSERA_TILE_BACKEND
#endif
