// The autotuner's L2 flush (internal): what runs on the stream before a timed candidate, and before each of
// the bench's timed batches.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tessera/runtime/device.h"

namespace tessera::dispatch::autotune::detail {
// Reads `words` 32-bit words at `data` (device memory, more than the L2 holds) on `stream`, writing one word a
// 4 KB row to `sink` (words / 1024 of them), as a tile kernel: like any tessera kernel it lets the kernel
// after it start launching once its own blocks have started (programmatic dependent launch, on Hopper), so a
// candidate timed after it overlaps its launch with the flush's tail as it would with the kernel before it in
// a model step. False if the launch failed (its error is cleared).
bool launch_l2_flush(const uint32_t* data, int64_t words, uint32_t* sink, StreamHandle stream);

// A buffer for launch_l2_flush on the current CUDA device: at least `bytes`, a whole number of the flush's
// 4 KB rows, with the sink after it, written once so that the flush reads defined words. Empty (`ok()` false)
// when the allocation failed; its error is cleared.
class L2FlushBuffer {
 public:
  explicit L2FlushBuffer(size_t bytes);
  ~L2FlushBuffer();
  L2FlushBuffer(const L2FlushBuffer&) = delete;
  L2FlushBuffer& operator=(const L2FlushBuffer&) = delete;

  bool ok() const { return data_ != nullptr; }
  size_t bytes() const { return bytes_; }
  // Reads the whole buffer on `stream`; where the flush kernel cannot launch, writes it instead
  // (cudaMemsetAsync with the byte `fill`). False if neither could be queued (or the buffer is empty); the
  // CUDA error is cleared either way.
  bool run(StreamHandle stream, int fill) const;

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};
}  // namespace tessera::dispatch::autotune::detail
