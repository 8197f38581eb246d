// The sampling family on the CPU through the host tile library.
#include "tessera/tile/tile.h"
#include "ops/sampling/launch.h"
