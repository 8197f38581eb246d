// Argument structs of the sampling family and the entry points of each backend.
#pragma once
#include "tessera/dispatch/dispatch.h"
#include "tessera/runtime/tensor.h"

namespace tessera::ops {

struct ArgmaxArgs {
  Tensor x;    // [..., n], rows fold
  Tensor out;  // i32, one per row, contiguous
};

#define TESSERA_SAMPLING_BACKEND_DECLS \
  void argmax(const ArgmaxArgs& args, const dispatch::Options& opt);
namespace reference { TESSERA_SAMPLING_BACKEND_DECLS }
namespace tile_host { TESSERA_SAMPLING_BACKEND_DECLS }
namespace tile_cuda { TESSERA_SAMPLING_BACKEND_DECLS }
#undef TESSERA_SAMPLING_BACKEND_DECLS

}  // namespace tessera::ops
