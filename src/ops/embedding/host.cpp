// The embedding family on the CPU through the host tile library.
#include "tessera/tile/tile.h"
#include "ops/embedding/launch.h"
