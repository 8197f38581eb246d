// Scratch memory for ops that need an intermediate buffer (split-K partial sums, split-KV partial
// attention): one grow-only buffer per device and name, reused across calls so a warmed-up step allocates
// nothing (and can be captured in a CUDA graph). Growing frees the old buffer after the device is idle; growing
// while `stream` is being captured into a CUDA graph (a first call on a new stream, a larger shape) keeps the
// old buffer instead, since work captured before may read it on every replay, and allocates beside the capture.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tessera/runtime/device.h"

namespace tessera {

// At least `bytes` of memory on `device`, valid until the next call with the same name and device asks for
// more. Calls with different names never share memory. Thread-safe; the memory itself is not: ops on one
// stream use it in order. `stream`: the stream the caller's work goes on (nullptr: the default stream).
void* workspace(const char* name, size_t bytes, Device device, StreamHandle stream);

// The same, zero-filled whenever the buffer is (re)allocated; its users must leave it zero when they finish
// (split-K arrival counters: the last arrival resets its counter).
void* zeroed_workspace(const char* name, size_t bytes, Device device, StreamHandle stream);

// A count of the buffer replacements so far (a buffer grown outside a capture frees its old memory). A CUDA
// graph captured before the count changed may hold freed workspace pointers: its owner must capture it again.
uint64_t workspace_generation();

}  // namespace tessera
