// The kernels' description of a RoPE (positions, frequencies, rotated features, layout), shared by the rope
// launchers and the fused RoPE + KV-cache append.
#pragma once
#include "ops/common/views.h"
#include "ops/rope/rope.tile.h"
#include "tessera/ops/rope.h"

namespace tessera::ops {

// Whether a RoPE over tokens x heads takes 8-head blocks: when fewer than a wave of 32-head blocks would run
// (decode steps), a block's time is its threads' latency chain, and 8 heads a block do a quarter of the
// element work a thread in 4x the blocks.
inline bool rope_in_8_head_blocks(int64_t tokens, int64_t heads) { return tokens * ((heads + 31) / 32) < 128; }

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
