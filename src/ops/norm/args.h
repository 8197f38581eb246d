// Argument structs of the norm family and the entry points of each backend.
#pragma once
#include "tessera/dispatch/dispatch.h"
#include "tessera/runtime/tensor.h"

namespace tessera::ops {

struct RmsNormArgs {
  Tensor x, weight, y;
  Tensor residual, residual_out;  // both empty unless the residual form is called
  float eps = 1e-6f;
  bool has_residual() const { return residual.data() != nullptr; }
};

struct LayerNormArgs {
  Tensor x, weight, bias, y;
  float eps = 1e-5f;
};

#define TESSERA_NORM_BACKEND_DECLS                                      \
  void rms_norm(const RmsNormArgs& args, const dispatch::Options& opt); \
  void layer_norm(const LayerNormArgs& args, const dispatch::Options& opt);
namespace reference { TESSERA_NORM_BACKEND_DECLS }
namespace tile_host { TESSERA_NORM_BACKEND_DECLS }
namespace tile_cuda { TESSERA_NORM_BACKEND_DECLS }
#undef TESSERA_NORM_BACKEND_DECLS

}  // namespace tessera::ops
