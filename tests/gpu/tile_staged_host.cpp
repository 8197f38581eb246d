// The staged test kernels on the host.
#include "tessera/tile/tile.h"
#include "tile_staged_launch.h"
