// The autotuner's L2 flush (internal): what runs on the stream before a timed candidate, and before each of
// the bench's timed batches.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tessera/runtime/device.h"

namespace tessera::dispatch::autotune::detail {
// A flush buffer on the current CUDA device: at least `bytes`, a whole number of the flush's 4 KB rows, with a
// sink after it, written once so that the flush reads defined words. Empty (`ok()` false) when the allocation
// failed; its error is cleared.
class L2FlushBuffer {
 public:
  explicit L2FlushBuffer(size_t bytes);
  ~L2FlushBuffer();
  L2FlushBuffer(const L2FlushBuffer&) = delete;
  L2FlushBuffer& operator=(const L2FlushBuffer&) = delete;

  bool ok() const { return data_ != nullptr; }
  size_t bytes() const { return bytes_; }
  // Reads the whole buffer on `stream` with a tile kernel (writing one word a 4 KB row to the sink): like any
  // tessera kernel it lets the kernel after it start launching once its own blocks have started (programmatic
  // dependent launch, on Hopper), so a candidate timed after it overlaps its launch with the flush's tail as it
  // would with the kernel before it in a model step. Where that kernel cannot launch, writes the buffer instead
  // (cudaMemsetAsync with the byte `fill`). False if neither could be queued (or the buffer is empty); the
  // CUDA error is cleared either way.
  bool run(StreamHandle stream, int fill) const;

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};
}  // namespace tessera::dispatch::autotune::detail
