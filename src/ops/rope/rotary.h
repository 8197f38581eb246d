// The kernels' description of a RoPE (positions, frequencies, rotated features, layout), shared by the rope
// launchers and the fused RoPE + KV-cache append.
#pragma once
#include "ops/common/views.h"
#include "ops/rope/rope.tile.h"
#include "tessera/ops/rope.h"

namespace tessera::ops {

inline kernels::Rotary rotary_of(const Tensor& positions, const Tensor& inv_freq, RopeLayout layout, int64_t rotary_dim) {
  kernels::Rotary r{};
  r.pos_i64 = positions.dtype() == DType::i64;
  if (r.pos_i64) r.pos64 = as_view<const int64_t, 1>(positions);
  else r.pos32 = as_view<const int32_t, 1>(positions);
  r.inv_freq = as_rows<const float>(inv_freq.reshape({1, inv_freq.numel()}));
  r.rotary = rotary_dim;
  r.interleaved = layout == RopeLayout::interleaved;
  return r;
}

}  // namespace tessera::ops
