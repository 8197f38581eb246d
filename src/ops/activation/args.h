// Argument structs of the activation family and the entry points of each backend.
#pragma once
#include "tessera/dispatch/dispatch.h"
#include "tessera/ops/activation.h"
#include "tessera/runtime/tensor.h"

namespace tessera::ops {

struct GeluArgs {
  Tensor x, y;  // same shape; y may be x
  GeluApprox approx = GeluApprox::none;
};

struct SiluAndMulArgs {
  Tensor x;  // [..., 2n] = [gate | up]
  Tensor y;  // [..., n]
};

#define TESSERA_ACTIVATION_BACKEND_DECLS                           \
  void gelu(const GeluArgs& args, const dispatch::Options& opt); \
  void silu_and_mul(const SiluAndMulArgs& args, const dispatch::Options& opt);
namespace reference { TESSERA_ACTIVATION_BACKEND_DECLS }
namespace tile_host { TESSERA_ACTIVATION_BACKEND_DECLS }
namespace tile_cuda { TESSERA_ACTIVATION_BACKEND_DECLS }
#undef TESSERA_ACTIVATION_BACKEND_DECLS

}  // namespace tessera::ops
