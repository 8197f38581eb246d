// The tile language. A kernel header includes this; the translation unit that instantiates the kernel decides
// the backend: nvcc builds against tessera::tile::cuda, a C++ compiler against tessera::tile::host.
#pragma once
#include "tessera/tile/common.h"
#if defined(__CUDACC__)
#include "tessera/tile/cuda.h"
namespace tessera::tile { namespace active = cuda; }
// Names the namespace that an op's launcher is compiled into, once per backend.
#define TESSERA_TILE_BACKEND tile_cuda
#else
#include "tessera/tile/host.h"
namespace tessera::tile { namespace active = host; }
#define TESSERA_TILE_BACKEND tile_host
#endif
#include "tessera/tile/group_stream.h"  // after the backend: its wait_for_predecessor
