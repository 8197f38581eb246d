// The autotuner's L2 flush as a tile kernel (l2_flush.h).
#include <cuda_runtime.h>

#include <exception>

#include "dispatch/l2_flush.h"
#include "tessera/tile/tile.h"

namespace tessera::dispatch::autotune::detail {
namespace {
// Each block fills one ROWS x COLS tile of the buffer seen as [words / COLS, COLS]. Small tiles, so many short
// blocks: a tessera kernel lets the next one launch once all its blocks have started, and the flush's last
// block then has about one block's work left, a few microseconds of overlap, as a short kernel before the
// candidate in a step would give. With 32 KB tiles (two waves of blocks) the candidates overlapped the last
// wave's ~15 us: those that prefetch their weights before waiting (swap-AB) gained there what they do not
// gain in a decode step, and the tuner took them for the q/k/v and down projections at one row, 0.4 ms a
// step slower (H200, session 43).
struct FillWords {
  static constexpr int threads = 256, rows = 1, cols = 1024;
  struct Params {
    tile::View2<uint32_t> data;
    uint32_t value;
  };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    store(blk, p.data, {int64_t(blk.bid(0)) * rows, 0}, full<uint32_t, rows, cols>(blk, p.value));
  }
};
}  // namespace

bool launch_l2_flush(uint32_t* data, int64_t words, uint32_t value, StreamHandle stream) {
  FillWords::Params p{};
  p.data.data = data;
  p.data.extent[0] = words / FillWords::cols;
  p.data.extent[1] = FillWords::cols;
  p.data.stride[0] = FillWords::cols;
  p.data.stride[1] = 1;
  p.value = value;
  try {
    tile::cuda::launch<FillWords>({(p.data.extent[0] + FillWords::rows - 1) / FillWords::rows}, p, stream);
  } catch (const std::exception&) {
    cudaGetLastError();
    return false;
  }
  return cudaGetLastError() == cudaSuccess;
}

}  // namespace tessera::dispatch::autotune::detail
