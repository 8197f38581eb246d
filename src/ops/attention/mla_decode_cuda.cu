// The staged MLA decode attention on the GPU (Hopper) through the CUDA tile library.
#include "tessera/tile/tile.h"
#include "ops/attention/mla_decode_launch.h"
