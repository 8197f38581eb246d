// matmul_fp8 on the GPU through the CUDA tile library.
#include "tessera/tile/tile.h"
#include "ops/matmul/fp8_launch.h"
