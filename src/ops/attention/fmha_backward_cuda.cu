// The prefill attention backward on the GPU (Hopper) through the CUDA tile library.
#include "tessera/tile/tile.h"
#include "ops/attention/fmha_backward_launch.h"
