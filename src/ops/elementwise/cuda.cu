// The elementwise family on the GPU through the CUDA tile library.
#include "tessera/tile/tile.h"
#include "ops/elementwise/launch.h"
