// matmul_fp8 on the CPU through the host tile library.
#include "tessera/tile/tile.h"
#include "ops/matmul/fp8_launch.h"
