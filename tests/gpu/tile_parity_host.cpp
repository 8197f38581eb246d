// The tile-operation test kernels on the host.
#include "tessera/tile/tile.h"
#include "tile_parity_launch.h"
