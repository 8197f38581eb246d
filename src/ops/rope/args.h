// Argument structs of the rope family and the entry points of each backend.
#pragma once
#include "tessera/dispatch/dispatch.h"
#include "tessera/ops/rope.h"
#include "tessera/runtime/tensor.h"

namespace tessera::ops {

struct RopeArgs {
  Tensor x, positions, inv_freq, y;  // x, y [tokens, heads, head_dim]; positions [tokens]; inv_freq [rotary_dim / 2]
  RopeLayout layout = RopeLayout::neox;
  int64_t rotary_dim = 0;            // resolved by the front-end: even, 0 < rotary_dim <= head_dim
  bool in_place() const { return y.data() == x.data() && y.strides() == x.strides(); }
};

struct Checker;
// The rope front-end's checks of x (named x_name in messages), positions, inv_freq and y; returns the resolved
// rotary_dim. Shared with the fused RoPE + KV-cache append.
int64_t check_rope(const Checker& c, const Tensor& x, const Tensor& positions, const Tensor& inv_freq, const Tensor& y,
                   RopeLayout layout, int64_t rotary_dim, const char* x_name);

#define TESSERA_ROPE_BACKEND_DECLS void rope(const RopeArgs& args, const dispatch::Options& opt);
namespace reference { TESSERA_ROPE_BACKEND_DECLS }
namespace tile_host { TESSERA_ROPE_BACKEND_DECLS }
namespace tile_cuda { TESSERA_ROPE_BACKEND_DECLS }
#undef TESSERA_ROPE_BACKEND_DECLS

}  // namespace tessera::ops
