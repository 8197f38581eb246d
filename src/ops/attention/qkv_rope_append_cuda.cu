// qkv_rope_kv_cache_append on the GPU through the CUDA tile library.
#include "tessera/tile/tile.h"
#include "ops/attention/qkv_rope_append_launch.h"
