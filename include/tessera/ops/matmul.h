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

// The gated projection of a SwiGLU MLP: c = silu(a @ Wg^T) * (a @ Wu^T), fp32 accumulation, where
// w = [Wg; Wu] is [2I, K] (the gate rows, then the up rows: the layout silu_and_mul reads) and c is [..., I].
// a, w and c share a dtype (f32, f16, bf16). For few rows (decode) one kernel computes both products and
// multiplies them, and the [..., 2I] product is never written; otherwise it is matmul into `scratch`
// ([..., 2I], c's dtype, contiguous; a buffer of the call's own when empty), then silu_and_mul.
void matmul_silu_and_mul(const Tensor& a, const Tensor& w, const Tensor& c, const Tensor& scratch = {},
                         const Options& options = {});

// Batched matmul: c[i] = alpha * act(a[i] @ b[i] + bias) + residual[i] for every i < B, fp32 accumulation.
// a: [B, M, K]; b: [B, N, K] or [B, K, N] per `b_layout`; c and residual: [B, M, N]; bias: [N]. Any batch and
// row strides (a batch stride of 0 repeats one matrix); the last dim of each is unit-stride. Dtypes as matmul.
void bmm(const Tensor& a, const Tensor& b, const Tensor& c, BLayout b_layout = BLayout::nk,
         const Epilogue& epilogue = {}, const Options& options = {});

// Grouped matmul (mixture-of-experts): G problems of different M sharing K and N, stacked by rows.
// Group g is c[o_g : o_(g+1)] = a[o_g : o_(g+1)] @ b[g]^T, where o = offsets.
// a: [R, K]; b: [G, N, K] (per-group weights); c: [R, N]; offsets: [G + 1] i32 or i64, contiguous, on a's
// device, rising from 0 to R. Offsets on the CPU are checked (an error writes nothing); offsets on a GPU are
// trusted by the kernel, which never reads or writes outside a, b and c whatever they hold.
// a and b share a dtype (f32, f16, bf16); c is that dtype or f32.
void group_gemm(const Tensor& a, const Tensor& b, const Tensor& offsets, const Tensor& c, const Options& options = {});

// fp8 matmul with per-tensor scales: c = scale_a * scale_b * (a @ b^T), fp32 accumulation.
// a: [..., K] fp8_e4m3 (leading dims fold into rows, last dim unit-stride); b: [N, K] fp8_e4m3; c: [..., N]
// bf16, f16 or f32. scale_a and scale_b are the dequantization scales of a and b (finite).
void matmul_fp8(const Tensor& a, const Tensor& b, const Tensor& c, float scale_a, float scale_b,
                const Options& options = {});

}  // namespace tessera::ops
