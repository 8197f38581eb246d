// The prefill attention backward on the CPU through the host tile library (the same kernel source as the GPU's).
#include "tessera/tile/tile.h"
#include "ops/attention/fmha_backward_launch.h"
