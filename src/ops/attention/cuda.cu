// The attention family on the GPU through the CUDA tile library.
#include "tessera/tile/tile.h"
#include "ops/attention/launch.h"

namespace tessera::ops::tile_cuda {
int64_t decode_slots(int64_t blocks_per_sm) { return blocks_per_sm * int64_t(tile::cuda::multiprocessor_count()); }
}  // namespace tessera::ops::tile_cuda
