// The attention family on the CPU through the host tile library.
#include "tessera/tile/tile.h"
#include "ops/attention/launch.h"

namespace tessera::ops::tile_host {
// A few blocks per pool thread, so that small batches exercise the split-KV path and its merge as on a GPU.
int64_t decode_slots(int64_t) { return 16; }
}  // namespace tessera::ops::tile_host
