// Elementwise binary operations and dtype conversion.
#pragma once
#include "tessera/dispatch/dispatch.h"
#include "tessera/runtime/tensor.h"

namespace tessera::ops {

using dispatch::Options;

// y = a + b elementwise, computed in fp32. a, b and y: same shape, dtype (f32, f16, bf16) and device; y may be
// a or b. (GPT-2 adds its learned position embeddings to the token embeddings this way.)
void add(const Tensor& a, const Tensor& b, const Tensor& y, const Options& options = {});

// y = x converted to y's dtype (f32, f16, bf16 in any pair; round to nearest even). Same shape and device.
// The engine converts checkpoint weights to the compute dtype with it, on the device they will live on.
void cast(const Tensor& x, const Tensor& y, const Options& options = {});

// y = x^T for a matrix x [rows, cols] and y [cols, rows] of one float dtype (a copy: exact). The engine lays
// GPT-2's Conv1D weights ([in, out]) out as [out, in] with it, once at load.
void transpose(const Tensor& x, const Tensor& y, const Options& options = {});

}  // namespace tessera::ops
