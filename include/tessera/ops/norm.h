// Normalisation over the last dimension: RMSNorm and LayerNorm.
#pragma once
#include "tessera/dispatch/dispatch.h"
#include "tessera/runtime/tensor.h"

namespace tessera::ops {

using dispatch::Options;

// y = x / sqrt(mean(x^2) + eps) * weight, over the last dim of x ([..., n]); weight is [n].
// x, weight and y share a dtype (f32, f16 or bf16) and a device; statistics are computed in fp32. An f32 x
// may also be normalised into an f16/bf16 y (weight then has y's dtype): a residual stream kept in fp32.
void rms_norm(const Tensor& x, const Tensor& weight, const Tensor& y, float eps, const Options& options = {});

// The pre-norm residual step: h = x + residual is written to residual_out (which may be residual itself),
// then y = rms_norm(h). residual and residual_out have x's dtype.
void rms_norm_residual(const Tensor& x, const Tensor& residual, const Tensor& residual_out, const Tensor& weight,
                       const Tensor& y, float eps, const Options& options = {});

// y = (x - mean(x)) / sqrt(var(x) + eps) * weight + bias, over the last dim; weight and bias are [n].
void layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& y, float eps,
                const Options& options = {});

}  // namespace tessera::ops
