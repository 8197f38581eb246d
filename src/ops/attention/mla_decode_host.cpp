// The staged MLA decode attention on the CPU through the host tile library (the same kernel source as the GPU's).
#include "tessera/tile/tile.h"
#include "ops/attention/mla_decode_launch.h"
