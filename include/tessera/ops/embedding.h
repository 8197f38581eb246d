// Embedding lookup.
#pragma once
#include "tessera/dispatch/dispatch.h"
#include "tessera/runtime/tensor.h"

namespace tessera::ops {

using dispatch::Options;

// y[i, :] = table[ids[i], :] for ids of any shape [...] (i32 or i64), table [vocab, dim], y [..., dim]
// (same dtype as table: f32, f16 or bf16). An id outside [0, vocab) is an error naming the id and its
// position, and nothing is written.
void embedding(const Tensor& ids, const Tensor& table, const Tensor& y, const Options& options = {});

}  // namespace tessera::ops
