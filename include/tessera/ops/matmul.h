// Matrix multiplication with a fused epilogue.
#pragma once
#include "tessera/dispatch/dispatch.h"
#include "tessera/runtime/tensor.h"

namespace tessera::ops {

using dispatch::Options;

// Values are part of the C ABI (include/tessera.h): append only.
enum class Activation : int32_t { none = 0, gelu = 1, gelu_tanh = 2, silu = 3, relu = 4 };
// How B is stored: [N, K] (a weight matrix as nn.Linear keeps it, "transposed") or [K, N].
enum class BLayout : int32_t { nk = 0, kn = 1 };

struct Epilogue {
  Tensor bias;                          // [N], or empty
  Activation activation = Activation::none;
  float alpha = 1.f;                    // scales act(a @ b + bias)
  Tensor residual;                      // like c, or empty: added last (may be c itself)
};

// c = alpha * act(a @ b + bias) + residual, with fp32 accumulation.
// a: [..., K] (leading dims fold into M rows, last dim unit-stride); b: [N, K] or [K, N] per `b_layout`;
// c: [..., N]. a and b share a dtype (f32, f16, bf16); c is that dtype or f32.
void matmul(const Tensor& a, const Tensor& b, const Tensor& c, BLayout b_layout = BLayout::nk,
            const Epilogue& epilogue = {}, const Options& options = {});

}  // namespace tessera::ops
