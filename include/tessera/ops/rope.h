// Rotary position embedding.
#pragma once
#include <vector>

#include "tessera/dispatch/dispatch.h"
#include "tessera/runtime/tensor.h"

namespace tessera::ops {

using dispatch::Options;

// Values are part of the C ABI (include/tessera.h): append only.
// neox: the rotated pairs are (i, i + rotary_dim/2) (GPT-NeoX, Llama in Hugging Face layout);
// interleaved: the pairs are (2i, 2i + 1) (GPT-J, the original Meta layout).
enum class RopeLayout : int32_t { neox = 0, interleaved = 1 };

// Rotates the first rotary_dim features of each head of x [tokens, heads, head_dim] by angle
// positions[t] * inv_freq[i] for pair i; features past rotary_dim are copied unchanged. positions: [tokens],
// i32 or i64; inv_freq: [rotary_dim / 2], f32 (any frequencies, so scaled RoPE variants are the caller's
// table). rotary_dim 0 means head_dim. y may be x (in place). x's token and head dims may be strided (a view
// into a fused qkv buffer), the last dim must be unit-stride.
void rope(const Tensor& x, const Tensor& positions, const Tensor& inv_freq, const Tensor& y, RopeLayout layout,
          int64_t rotary_dim = 0, const Options& options = {});

// The standard table inv_freq[i] = theta^(-2i / rotary_dim).
std::vector<float> rope_inv_freq(int64_t rotary_dim, double theta);

}  // namespace tessera::ops
