#pragma once
#include "tessera/dispatch/autotune.h"
#include "tessera/ops/matmul.h"

namespace tessera::ops {

struct MatmulArgs {
  Tensor a, b, c;
  BLayout b_layout = BLayout::nk;
  Epilogue epilogue;
};

// The autotuner's key for the tuned matmul case (16-bit, B as [N, K]): M rounded up to a power of two, N and K
// exact. `tessera tune` and `tessera bench` use it to report what was chosen.
dispatch::autotune::Key matmul_tune_key(DType dtype, int64_t m, int64_t n, int64_t k);

#define TESSERA_MATMUL_BACKEND_DECLS void matmul(const MatmulArgs& args, const dispatch::Options& opt);
namespace reference { TESSERA_MATMUL_BACKEND_DECLS }
namespace tile_host { TESSERA_MATMUL_BACKEND_DECLS }
namespace tile_cuda { TESSERA_MATMUL_BACKEND_DECLS }
#undef TESSERA_MATMUL_BACKEND_DECLS

}  // namespace tessera::ops
