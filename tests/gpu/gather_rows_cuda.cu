// The gather/scatter test kernel on CUDA.
#include "tessera/tile/tile.h"
#include "gather_rows_launch.h"
