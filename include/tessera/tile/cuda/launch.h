// CUDA launch of a tile kernel: one CUDA block of Kernel::threads threads per grid block.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "tessera/runtime/cuda_check.h"
#include "tessera/runtime/device.h"
#include "tessera/tile/cuda/hopper/pipeline.h"
#include "tessera/tile/cuda/tile.h"

namespace tessera::tile::cuda {

// A kernel may declare `static constexpr int min_blocks_per_sm`: the compiler then caps registers so that many
// blocks fit on one multiprocessor (memory-bound kernels want the loads of several blocks in flight); a staged
// kernel's roles then split that share of the register file (hopper/pipeline.h).
template <class Kernel>
constexpr int min_blocks_per_sm() { return hopper::blocks_per_multiprocessor<Kernel>(); }

template <class Kernel>
__global__ void __launch_bounds__(Kernel::threads, min_blocks_per_sm<Kernel>()) kernel_entry(const __grid_constant__ typename Kernel::Params params) {
  if constexpr (requires { typename Kernel::Pipe; }) {
    run_staged<Kernel>(params);  // a staged kernel: one body per role (hopper/pipeline.h)
  } else {
    Block<Kernel::threads> blk;
    Kernel{}(blk, params);
  }
}

// Dynamic shared memory a kernel declares (`static constexpr size_t shared_bytes`), e.g. a staged pipeline's.
template <class Kernel>
constexpr size_t declared_shared_bytes() {
  if constexpr (requires { Kernel::shared_bytes; }) return Kernel::shared_bytes;
  else return 0;
}

// Multiprocessors of the current device: the size of a persistent grid.
inline int multiprocessor_count() {
  int device = 0, count = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&device));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

// Whether the current device runs sm_90a code (Hopper: TMA, wgmma).
inline bool device_is_hopper() {
  int device = 0, major = 0, minor = 0;
  TESSERA_CUDA_CHECK(cudaGetDevice(&device));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major == 9 && minor == 0;
}

template <class Kernel>
void launch(Grid grid, const typename Kernel::Params& params, StreamHandle stream, size_t shared_bytes = 0) {
  if (grid.count() == 0) return;
  shared_bytes += declared_shared_bytes<Kernel>();
  if (shared_bytes > 48 * 1024)
    TESSERA_CUDA_CHECK(cudaFuncSetAttribute(kernel_entry<Kernel>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_bytes)));
  if (grid.x > 0x7fffffff || grid.y > 65535 || grid.z > 65535)
    invalid_argument("launch: grid (" + std::to_string(grid.x) + ", " + std::to_string(grid.y) + ", " +
                     std::to_string(grid.z) + ") exceeds CUDA's limits");
  kernel_entry<Kernel><<<dim3(unsigned(grid.x), unsigned(grid.y), unsigned(grid.z)), Kernel::threads, shared_bytes,
                         static_cast<cudaStream_t>(stream)>>>(params);
  TESSERA_CUDA_CHECK_LAUNCH();
}

}  // namespace tessera::tile::cuda
