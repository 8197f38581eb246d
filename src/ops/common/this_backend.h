// For a launcher that composes ops (a matmul, then an elementwise op): the options that run them on the
// launcher's own tile backend, with the caller's stream. In the backend's namespace, so that the CUDA and host
// translation units each have their own.
#pragma once
#include "tessera/dispatch/dispatch.h"
#include "tessera/tile/tile.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

inline dispatch::Options on_this_backend(dispatch::Options opt) {
#if defined(__CUDACC__)
  opt.backend = dispatch::Backend::tile_cuda;
#else
  opt.backend = dispatch::Backend::tile_host;
#endif
  return opt;
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
