#pragma once
#include "tessera/ops/matmul.h"

namespace tessera::ops {

struct MatmulArgs {
  Tensor a, b, c;
  BLayout b_layout = BLayout::nk;
  Epilogue epilogue;
};

#define TESSERA_MATMUL_BACKEND_DECLS void matmul(const MatmulArgs& args, const dispatch::Options& opt);
namespace reference { TESSERA_MATMUL_BACKEND_DECLS }
namespace tile_host { TESSERA_MATMUL_BACKEND_DECLS }
namespace tile_cuda { TESSERA_MATMUL_BACKEND_DECLS }
#undef TESSERA_MATMUL_BACKEND_DECLS

}  // namespace tessera::ops
