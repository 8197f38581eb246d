// The staged test kernels on CUDA.
#include "tessera/tile/tile.h"
#include "tile_staged_launch.h"
