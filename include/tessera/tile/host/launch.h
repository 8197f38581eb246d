// Host launch: the grid's blocks run on a pool of CPU threads, each block start to finish on one thread.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>

#include "tessera/tile/host/tile.h"
#include "tessera/tile/staged.h"

namespace tessera::tile::host {

// Runs body(block) for every block of the grid, spread over the worker threads (TESSERA_HOST_THREADS, default:
// all cores). Blocks of one launch must not depend on each other, as on a GPU.
void run_grid(Grid grid, const std::function<void(const Block&)>& body);

// Worker threads of host launches: the size of a persistent grid on the CPU.
int multiprocessor_count();

// The grid of a persistent kernel with `work_items` units of work: a block per worker thread, a whole number
// of clusters (persistent_tiles gives the blocks of a cluster the same units), never more than the work.
template <class Kernel>
int64_t persistent_blocks(int64_t work_items) {
  constexpr int64_t cluster = cluster_size<Kernel>();
  const int64_t clusters = std::max<int64_t>(1, multiprocessor_count() / cluster);
  return std::min<int64_t>((work_items + cluster - 1) / cluster, clusters) * cluster;
}

// See cuda/launch.h: host launches run one after another, nothing to wait for.
inline void wait_for_predecessor(const Block&) {}

// The stream argument keeps the signature of cuda::launch; host launches are synchronous.
template <class Kernel>
void launch(Grid grid, const typename Kernel::Params& params, void* /*stream*/ = nullptr, size_t /*shared_bytes*/ = 0) {
  run_grid(grid, [&params](const Block& blk) {
    Block b = blk;
    Kernel{}(b, params);
  });
}

}  // namespace tessera::tile::host
