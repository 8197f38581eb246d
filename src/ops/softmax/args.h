// Argument structs of the softmax family and the entry points of each backend.
#pragma once
#include "tessera/dispatch/dispatch.h"
#include "tessera/runtime/tensor.h"

namespace tessera::ops {

struct SoftmaxArgs {
  Tensor x, y;  // same shape; y may be x
  float scale = 1.f;
};

#define TESSERA_SOFTMAX_BACKEND_DECLS \
  void softmax(const SoftmaxArgs& args, const dispatch::Options& opt);
namespace reference { TESSERA_SOFTMAX_BACKEND_DECLS }
namespace tile_host { TESSERA_SOFTMAX_BACKEND_DECLS }
namespace tile_cuda { TESSERA_SOFTMAX_BACKEND_DECLS }
#undef TESSERA_SOFTMAX_BACKEND_DECLS

}  // namespace tessera::ops
