// The elementwise family on the CPU through the host tile library.
#include "tessera/tile/tile.h"
#include "ops/elementwise/launch.h"
