// Which form of the library's kernels a CUDA device runs: the code compiled for its architecture (sm_90a,
// sm_80, or PTX compiled when loaded), read from a kernel of this library.
#include <cuda_runtime.h>

#include "tessera/runtime/cuda_check.h"
#include "runtime/kernel_code.h"

namespace tessera::detail {

namespace {
__global__ void kernel_code_probe() {}
}  // namespace

int cuda_kernel_code_arch(int device) {
  int current = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&current));
  if (current != device) TESSERA_CUDA_CHECK(cudaSetDevice(device));
  cudaFuncAttributes attributes{};
  const cudaError_t status = cudaFuncGetAttributes(&attributes, kernel_code_probe);
  if (current != device) TESSERA_CUDA_CHECK(cudaSetDevice(current));
  if (status != cudaSuccess) {  // no code of this build runs on the device (e.g. a GPU older than sm_80)
    cudaGetLastError();
    return 0;
  }
  return attributes.ptxVersion;
}

}  // namespace tessera::detail
