// The autotuner's L2 flush as a tile kernel, and its buffer (l2_flush.h).
#include <cuda_runtime.h>

#include <exception>

#include "dispatch/l2_flush.h"
#include "tessera/tile/tile.h"

namespace tessera::dispatch::autotune::detail {
namespace {
// Each block reads one ROWS x COLS tile of the buffer seen as [words / COLS, COLS] and writes its largest word
// to the sink, so that the loads are not dropped.
//
// By reading, not writing: the flush leaves the L2 full of clean lines, as a decode step's weights do, and the
// candidate's loads evict them without writing anything back. A flush that filled the buffer left ~60 MB of
// dirty lines, and each candidate also paid for writing back as many bytes as it read: one-row projections
// were timed 14-15 us at 4096 x 4096 against 12.1-12.5 now and ~11 in a step's chain (H200, session 46).
//
// Small tiles, so many short blocks: a tessera kernel lets the next one launch once all its blocks have
// started, and the flush's last block then has about one block's work left, a few microseconds of overlap, as
// a short kernel before the candidate in a step would give. With 32 KB tiles (two waves of blocks) the
// candidates overlapped the last wave's ~15 us: those that prefetch their weights before waiting (swap-AB)
// gained there what they do not gain in a decode step, and the tuner took them for the q/k/v and down
// projections at one row, 0.4 ms a step slower (H200, session 43).
struct ReadWords {
  static constexpr int threads = 256, rows = 1, cols = 1024;
  struct Params {
    tile::View2<const uint32_t> data;
    tile::View2<uint32_t> sink;  // [tiles, 1]
  };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r0 = int64_t(blk.bid(0)) * rows;
    store(blk, p.sink, {r0, 0}, row_max(load<rows, cols>(blk, p.data, {r0, 0})));
  }
};

// Reads `words` 32-bit words at `data` (more than the L2 holds), writing one word a 4 KB row to `sink` (words /
// 1024 of them). False if the launch failed (its error is cleared).
bool launch_l2_flush(const uint32_t* data, int64_t words, uint32_t* sink, StreamHandle stream) {
  ReadWords::Params p{};
  p.data.data = data;
  p.data.extent[0] = words / ReadWords::cols;
  p.data.extent[1] = ReadWords::cols;
  p.data.stride[0] = ReadWords::cols;
  p.data.stride[1] = 1;
  p.sink.data = sink;
  p.sink.extent[0] = p.data.extent[0];
  p.sink.extent[1] = 1;
  p.sink.stride[0] = 1;
  p.sink.stride[1] = 1;
  try {
    tile::cuda::launch<ReadWords>({(p.data.extent[0] + ReadWords::rows - 1) / ReadWords::rows}, p, stream);
  } catch (const std::exception&) {
    cudaGetLastError();
    return false;
  }
  return cudaGetLastError() == cudaSuccess;
}
}  // namespace

L2FlushBuffer::L2FlushBuffer(size_t bytes) {
  const size_t rows = (bytes + 4095) / 4096;
  bytes_ = rows * 4096;
  if (cudaMalloc(&data_, bytes_ + rows * 4) != cudaSuccess || cudaMemset(data_, 0x5a, bytes_) != cudaSuccess) {
    cudaGetLastError();
    if (data_) cudaFree(data_);
    data_ = nullptr;
    bytes_ = 0;
  }
}

L2FlushBuffer::~L2FlushBuffer() {
  if (data_) cudaFree(data_);
}

bool L2FlushBuffer::run(StreamHandle stream, int fill) const {
  if (!data_) return false;
  auto* sink = reinterpret_cast<uint32_t*>(static_cast<char*>(data_) + bytes_);
  if (launch_l2_flush(static_cast<const uint32_t*>(data_), int64_t(bytes_ / 4), sink, stream)) return true;
  if (cudaMemsetAsync(data_, fill & 0xff, bytes_, static_cast<cudaStream_t>(stream)) == cudaSuccess) return true;
  cudaGetLastError();
  return false;
}

}  // namespace tessera::dispatch::autotune::detail
