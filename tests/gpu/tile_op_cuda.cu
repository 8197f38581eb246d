// The tile-op test kernels on CUDA.
#include "tessera/tile/tile.h"
#include "tile_op_launch.h"
