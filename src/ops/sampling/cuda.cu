// The sampling family on the GPU through the CUDA tile library.
#include "tessera/tile/tile.h"
#include "ops/sampling/launch.h"
