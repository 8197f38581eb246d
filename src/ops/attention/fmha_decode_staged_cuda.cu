// The staged decode attention on the GPU (Hopper) through the CUDA tile library.
#include "tessera/tile/tile.h"
#include "ops/attention/fmha_decode_staged_launch.h"
