// The tile-operation test kernels on CUDA.
#include "tessera/tile/tile.h"
#include "tile_parity_launch.h"
