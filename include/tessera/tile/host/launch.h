// Host launch: the grid's blocks run on a pool of CPU threads, each block start to finish on one thread.
#pragma once
#include <functional>

#include "tessera/tile/host/tile.h"

namespace tessera::tile::host {

// Runs body(block) for every block of the grid, spread over the worker threads (TESSERA_HOST_THREADS, default:
// all cores). Blocks of one launch must not depend on each other, as on a GPU.
void run_grid(Grid grid, const std::function<void(const Block&)>& body);

// Worker threads of host launches: the size of a persistent grid on the CPU.
int multiprocessor_count();

// The stream argument keeps the signature of cuda::launch; host launches are synchronous.
template <class Kernel>
void launch(Grid grid, const typename Kernel::Params& params, void* /*stream*/ = nullptr, size_t /*shared_bytes*/ = 0) {
  run_grid(grid, [&params](const Block& blk) {
    Block b = blk;
    Kernel{}(b, params);
  });
}

}  // namespace tessera::tile::host
