// bmm and group_gemm on the GPU through the CUDA tile library.
#include "tessera/tile/tile.h"
#include "ops/matmul/batched_launch.h"
