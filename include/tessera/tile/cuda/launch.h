// CUDA launch of a tile kernel: one CUDA block of Kernel::threads threads per grid block.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <string>
#include <typeinfo>

#include "tessera/runtime/cuda_check.h"
#include "tessera/runtime/device.h"
#include "tessera/tile/cuda/hopper/pipeline.h"
#include "tessera/tile/cuda/per_device.h"
#include "tessera/tile/cuda/tile.h"
#include "tessera/tile/cuda/trace.h"
#include "tessera/tile/staged.h"

namespace tessera::tile::cuda {

// A kernel may declare `static constexpr int min_blocks_per_sm`: the compiler then caps registers so that many
// blocks fit on one multiprocessor (memory-bound kernels want the loads of several blocks in flight); a staged
// kernel's roles then split that share of the register file (hopper/pipeline.h).
template <class Kernel>
constexpr int min_blocks_per_sm() { return hopper::blocks_per_multiprocessor<Kernel>(); }

// Programmatic dependent launch (Hopper): every kernel is launched so that it may start while the kernel before
// it in the stream finishes, and waits (griddepcontrol.wait) for that kernel's completion and memory before it
// reads anything; then it lets the next one start likewise. What overlaps is a kernel's start (block
// scheduling, barrier set-up) with its predecessor's tail, the gaps between the small kernels of a decode
// step. A kernel may declare `before_dependencies(blk, params)`: work that reads only what no earlier kernel
// writes (weights: e.g. prefetching their first tiles into L2), run before the wait. A staged kernel may
// declare `producer_starts_early(params)` (tile/staged.h): where it holds, only the consumer roles wait here
// (in run_staged) and the producer waits where the kernel says (Pipeline::wait_for_predecessor).
// A plain kernel may declare `static constexpr bool waits_for_predecessor = true`: kernel_entry then does not
// wait, and the kernel calls wait_for_predecessor(blk) itself once it has asked for what no earlier kernel
// writes (its first weight tiles: their latency passes while the kernel before it finishes).
// `trace_slot` is where the blocks record their timeline in a traced build (trace.h), empty otherwise.
template <class Kernel>
constexpr bool waits_in_body() {
  if constexpr (requires { Kernel::waits_for_predecessor; }) return Kernel::waits_for_predecessor;
  else return false;
}

template <class Kernel>
__global__ void __launch_bounds__(Kernel::threads, min_blocks_per_sm<Kernel>())
    kernel_entry(const __grid_constant__ typename Kernel::Params params, const trace::Slot trace_slot) {
  trace::block_started(trace_slot);
  static_assert(!waits_in_body<Kernel>() || !requires { typename Kernel::Pipe; },
                "a staged kernel's producer waits through producer_starts_early and its pipeline");
  bool producer_early = false;
  if constexpr (requires { Kernel::producer_starts_early(params); }) producer_early = Kernel::producer_starts_early(params);
  const bool waits_here = !producer_early && !waits_in_body<Kernel>();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (requires(Block<Kernel::threads>& b, const typename Kernel::Params& p) { Kernel::before_dependencies(b, p); }) {
    Block<Kernel::threads> blk;
    Kernel::before_dependencies(blk, params);
  }
  if (waits_here) {
    hopper::wait_for_predecessor();
    hopper::let_dependents_start();
  }
#endif
  if (waits_here) trace::block_ready(trace_slot);
  if constexpr (requires { typename Kernel::Pipe; }) {
    trace::open_body_record(trace_slot);
    run_staged<Kernel>(params, producer_early);  // a staged kernel: one body per role (hopper/pipeline.h)
  } else {
    if constexpr (waits_in_body<Kernel>()) trace::open_body_record(trace_slot);  // for the ready time
    Block<Kernel::threads> blk;
    Kernel{}(blk, params);
  }
  trace::warp_finished(trace_slot);
}

// In a kernel that declares waits_for_predecessor (above): the calling thread waits for the kernel before this
// one in the stream to finish and its writes to be visible, then lets the next one start. Every thread of the
// block calls it, before it reads anything an earlier kernel may write.
template <int TH>
__device__ __forceinline__ void wait_for_predecessor(const Block<TH>&) {
  wait_for_predecessor_in_body();
}

// Dynamic shared memory a kernel declares (`static constexpr size_t shared_bytes`), e.g. a staged pipeline's.
template <class Kernel>
constexpr size_t declared_shared_bytes() {
  if constexpr (requires { Kernel::shared_bytes; }) return Kernel::shared_bytes;
  else return 0;
}

// Multiprocessors of the current device: the size of a persistent grid.
inline int multiprocessor_count() {
  static std::array<std::atomic<int>, 64> known{};
  return detail::per_device(known, [](int device) {
    int count = 0;
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    return count;
  });
}

// Whether the current device runs the Hopper kernels (TMA, wgmma, programmatic dependent launch):
// tessera::cuda_hopper_kernels, an sm_90 device unless TESSERA_HOPPER=0.
inline bool device_is_hopper() {
  static std::array<std::atomic<int>, 64> known{};
  return detail::per_device(known, [](int device) { return tessera::cuda_hopper_kernels(device) ? 1 : 2; }) == 1;
}

// Whether the current device runs the staged kernels' sm_80 form (tessera::cuda_sm80_pipelines).
inline bool device_runs_sm80_pipelines() {
  static std::array<std::atomic<int>, 64> known{};
  return detail::per_device(known, [](int device) { return tessera::cuda_sm80_pipelines(device) ? 1 : 2; }) == 1;
}

// The most shared memory one block of the current device may have (opted in): which stage counts fit.
inline size_t max_shared_bytes_per_block() {
  static std::array<std::atomic<int>, 64> known{};
  return size_t(detail::per_device(known, [](int device) {
    int bytes = 0;
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    return bytes;
  }));
}

// TESSERA_PDL=0 launches every kernel after its predecessor ends (to measure what dependent launch gains).
inline bool dependent_launch_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("TESSERA_PDL");
    return v == nullptr || std::string(v) != "0";
  }();
  return enabled;
}

namespace detail {
// The static shared memory of Kernel (its tile operations' exchange buffers), once.
template <class Kernel>
size_t static_shared_bytes() {
  static const size_t bytes = [] {
    cudaFuncAttributes attributes{};
    if (cudaFuncGetAttributes(&attributes, kernel_entry<Kernel>) != cudaSuccess) {
      cudaGetLastError();
      return size_t(0);
    }
    return attributes.sharedSizeBytes;
  }();
  return bytes;
}

// The launch configuration of Kernel on `grid` (its dynamic shared memory allowed first): dependent launch on
// Hopper, and the kernel's clusters. `attrs` holds the attributes config points at.
template <class Kernel>
cudaLaunchConfig_t launch_config(Grid grid, StreamHandle stream, size_t shared_bytes, cudaLaunchAttribute (&attrs)[2]) {
  // Past 48 KB in all, static and dynamic, a kernel must be allowed its dynamic part: a test kernel of 33 KB of
  // stages beside 16.5 KB of exchange buffers failed to launch with "invalid argument" (session 60).
  if (shared_bytes > 0 && shared_bytes + static_shared_bytes<Kernel>() > 48 * 1024)
    TESSERA_CUDA_CHECK(cudaFuncSetAttribute(kernel_entry<Kernel>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_bytes)));
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(grid.x), unsigned(grid.y), unsigned(grid.z));
  config.blockDim = dim3(unsigned(Kernel::threads));
  config.dynamicSmemBytes = shared_bytes;
  config.stream = static_cast<cudaStream_t>(stream);
  config.attrs = attrs;
  config.numAttrs = 0;
  if (device_is_hopper() && dependent_launch_enabled()) {  // kernel_entry: may start early, waits before reading
    attrs[config.numAttrs].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[config.numAttrs].val.programmaticStreamSerializationAllowed = 1;
    ++config.numAttrs;
  }
  if constexpr (cluster_size<Kernel>() > 1) {
    attrs[config.numAttrs].id = cudaLaunchAttributeClusterDimension;
    attrs[config.numAttrs].val.clusterDim.x = unsigned(cluster_size<Kernel>());
    attrs[config.numAttrs].val.clusterDim.y = 1;
    attrs[config.numAttrs].val.clusterDim.z = 1;
    ++config.numAttrs;
  }
  return config;
}
}  // namespace detail

template <class Kernel>
void launch(Grid grid, const typename Kernel::Params& params, StreamHandle stream, size_t shared_bytes = 0) {
  if (grid.count() == 0) return;
  shared_bytes += declared_shared_bytes<Kernel>();
  if (grid.x > 0x7fffffff || grid.y > 65535 || grid.z > 65535)
    invalid_argument("launch: grid (" + std::to_string(grid.x) + ", " + std::to_string(grid.y) + ", " +
                     std::to_string(grid.z) + ") exceeds CUDA's limits");
  if (grid.x % cluster_size<Kernel>() != 0)
    invalid_argument("launch: grid.x = " + std::to_string(grid.x) + " is not a multiple of the kernel's cluster of " +
                     std::to_string(cluster_size<Kernel>()) + " blocks");
  cudaLaunchAttribute attrs[2];
  const cudaLaunchConfig_t config = detail::launch_config<Kernel>(grid, stream, shared_bytes, attrs);
  TESSERA_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel_entry<Kernel>, params, trace::reserve(typeid(Kernel).name(), grid.count())));
}

// The grid of a persistent kernel with `work_items` units of work (persistent_tiles): one block per
// multiprocessor, or with clusters as many whole clusters as the device holds at once (a GPC's free
// multiprocessors need not pair up, so that can be fewer than half of them), never more than the work.
template <class Kernel>
int64_t persistent_blocks(int64_t work_items) {
  constexpr int cluster = cluster_size<Kernel>();
  if constexpr (cluster == 1) {
    return std::min<int64_t>(work_items, multiprocessor_count());
  } else {
    static std::array<std::atomic<int>, 64> known{};
    const int clusters = detail::per_device(known, [](int) {
      cudaLaunchAttribute attrs[2];
      const cudaLaunchConfig_t config =
          detail::launch_config<Kernel>({int64_t(cluster)}, nullptr, declared_shared_bytes<Kernel>(), attrs);
      int n = 0;
      TESSERA_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&n, kernel_entry<Kernel>, &config));
      if (n <= 0) fail(Status::cuda_error, "persistent_blocks: the device holds no cluster of this kernel");
      return n;
    });
    return std::min<int64_t>((work_items + cluster - 1) / cluster, clusters) * cluster;
  }
}

}  // namespace tessera::tile::cuda
