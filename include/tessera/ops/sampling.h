// Choosing tokens from logits on the device, so a decode step brings back token ids instead of a vocabulary's
// worth of logits per sequence.
#pragma once
#include "tessera/dispatch/dispatch.h"
#include "tessera/runtime/tensor.h"

namespace tessera::ops {

using dispatch::Options;

// out[r] = the index of the largest entry of row r of x (every dim but the last folds into rows), the
// smallest such index on ties. NaN entries are ignored; a row of nothing but NaN gives 0. x: f32, f16 or
// bf16 with rows of at least one entry; out: i32 with x's shape less its last dim, contiguous, on x's device.
void argmax(const Tensor& x, const Tensor& out, const Options& options = {});

}  // namespace tessera::ops
