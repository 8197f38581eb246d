// The tile-op test kernels on the host (the specification).
#include "tessera/tile/tile.h"
#include "tile_op_launch.h"
