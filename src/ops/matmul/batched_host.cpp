// bmm and group_gemm on the CPU through the host tile library.
#include "tessera/tile/tile.h"
#include "ops/matmul/batched_launch.h"
