// Registration of an op's three backends in one place. The tile-cuda entry exists only in CUDA builds.
#pragma once
#include <cmath>

#include "tessera/dispatch/dispatch.h"

#if TESSERA_WITH_CUDA
#define TESSERA_CUDA_FN(fn) (&fn)
#else
#define TESSERA_CUDA_FN(fn) (nullptr)
#endif

namespace tessera::ops {

template <class Args>
using BackendFn = void (*)(const Args&, const dispatch::Options&);

// Creates the op with its reference, tile-host and (when built) tile-cuda implementations. `check`, when
// given, applies to both tile backends (dtype or size limits of the kernels).
template <class Args>
dispatch::Op<Args>& register_op(const char* name, BackendFn<Args> reference, BackendFn<Args> host,
                                BackendFn<Args> cuda, typename dispatch::Op<Args>::Check check = nullptr) {
  auto* op = new dispatch::Op<Args>(name);  // lives for the program, like the registry
  op->add(dispatch::Backend::reference, reference);
  if (host) op->add(dispatch::Backend::tile_host, host, check);
  if (cuda) op->add(dispatch::Backend::tile_cuda, cuda, check);
  return *op;
}

}  // namespace tessera::ops
