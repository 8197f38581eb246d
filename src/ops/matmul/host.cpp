// The matmul family on the CPU through the host tile library.
#include "tessera/tile/tile.h"
#include "ops/matmul/launch.h"
