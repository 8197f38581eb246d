// The CUDA tile library: include from .cu translation units that instantiate kernels for the GPU.
#pragma once
#include "tessera/tile/cuda/launch.h"
#include "tessera/tile/cuda/math.h"
#include "tessera/tile/cuda/reduce.h"
#include "tessera/tile/cuda/tile.h"
#include "tessera/tile/cuda/hopper/pipeline.h"
#include "tessera/tile/cuda/fragment_mma.h"
#include "tessera/tile/cuda/gather.h"
