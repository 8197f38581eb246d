// Elementwise activations.
#pragma once
#include "tessera/dispatch/dispatch.h"
#include "tessera/runtime/tensor.h"

namespace tessera::ops {

using dispatch::Options;

// Values are part of the C ABI (include/tessera.h): append only.
enum class GeluApprox : int32_t { none = 0, tanh = 1 };

// y = gelu(x) elementwise: x * Phi(x) (erf form) or the tanh approximation. x and y: same shape, dtype
// (f32, f16, bf16) and device; y may be x.
void gelu(const Tensor& x, const Tensor& y, GeluApprox approx = GeluApprox::none, const Options& options = {});

// The gated MLP activation: x is [..., 2n] = [gate | up], y[..., n] = silu(gate) * up, silu(g) = g * sigmoid(g).
void silu_and_mul(const Tensor& x, const Tensor& y, const Options& options = {});

}  // namespace tessera::ops
