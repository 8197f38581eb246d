// The attention family on the GPU through the CUDA tile library.
#include "tessera/tile/tile.h"
#include "ops/attention/launch.h"

namespace tessera::ops::tile_cuda {
// Two blocks per multiprocessor.
int64_t decode_target_blocks(Device device) {
  int sms = 0;
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device.index));
  return 2 * int64_t(sms);
}
}  // namespace tessera::ops::tile_cuda
