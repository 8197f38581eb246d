// Softmax over the last dimension.
#pragma once
#include "tessera/dispatch/dispatch.h"
#include "tessera/runtime/tensor.h"

namespace tessera::ops {

using dispatch::Options;

// y = softmax(scale * x) over the last dim, computed stably (max subtracted) in fp32. A row whose entries
// are all -inf gives zeros, not NaN. x and y: same shape, dtype (f32, f16, bf16) and device; y may be x.
void softmax(const Tensor& x, const Tensor& y, float scale = 1.f, const Options& options = {});

}  // namespace tessera::ops
