// The autotuner's L2 flush (internal): what runs on the stream before a timed candidate.
#pragma once
#include <cstdint>

#include "tessera/runtime/device.h"

namespace tessera::dispatch::autotune::detail {
// Reads `words` 32-bit words at `data` (device memory, more than the L2 holds) on `stream`, writing one word a
// 4 KB row to `sink` (words / 1024 of them), as a tile kernel: like any tessera kernel it lets the kernel
// after it start launching once its own blocks have started (programmatic dependent launch, on Hopper), so a
// candidate timed after it overlaps its launch with the flush's tail as it would with the kernel before it in
// a model step. False if the launch failed (its error is cleared).
bool launch_l2_flush(const uint32_t* data, int64_t words, uint32_t* sink, StreamHandle stream);
}  // namespace tessera::dispatch::autotune::detail
