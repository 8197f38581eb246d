// qkv_rope_kv_cache_append on the CPU through the host tile library (the same kernel source as the GPU's).
#include "tessera/tile/tile.h"
#include "ops/attention/qkv_rope_append_launch.h"
