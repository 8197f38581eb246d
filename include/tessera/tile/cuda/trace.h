// A timeline of the GPU's work seen from inside the kernels: in a build configured with
// -DTESSERA_TILE_TRACE=ON, every block of every tile kernel launched while a trace is open records when it
// started, when its dependencies were met (after programmatic dependent launch's wait) and when its last warp
// returned, on the GPU's global nanosecond clock, with the multiprocessor it ran on.
//
// Nsight Systems shows kernels, not blocks, and does not run on every machine (not on our GPU machine). A
// decode step is a few hundred short kernels that overlap through dependent launch; what it spends besides
// streaming weights is in the blocks' starts, the waits on their predecessors and the spread of their ends,
// which this shows. In other builds the hooks compile to nothing and a launch passes an empty slot.
//
// A CUDA graph keeps the slots its launches had when it was captured: a trace opened before the capture
// holds, for each launch of the graph, its last replay.
#pragma once
#include <cstdint>
#include <string>

#include "tessera/tile/common.h"

namespace tessera::tile::cuda::trace {

// Steps a staged kernel's pipeline marks (hopper/pipeline.h): where a block's time goes between its
// dependencies and its end.
enum Mark : int {
  first_copy_issued = 0,  // the producer issued the first stage's copies
  first_stage_full = 1,   // a consumer found the first stage full
  last_stage_released = 2,  // a consumer gave back its last stage (its k loop is done)
  consumer_returned = 3,    // the first consumer warpgroup's kernel body returned (its epilogue is done)
  kMarks = 4
};

struct BlockRecord {
  unsigned long long start;  // the block's first instruction
  unsigned long long ready;  // its predecessor's memory visible to it
  unsigned long long end;    // its last warp's return
  unsigned sm;
  unsigned unused;
  unsigned long long marks[kMarks];  // 0 where the kernel made no such step
};

// Where one launch's blocks write their records (none when no trace is open).
struct Slot {
  BlockRecord* records = nullptr;
};

// Whether this build records traces (-DTESSERA_TILE_TRACE=ON).
bool available();
// Opens a trace with room for `max_blocks` block records on the current device (it allocates: not while a
// stream is being captured). Throws where the build records no traces or a trace is open already.
void open(int64_t max_blocks);
bool is_open();
// The records of a launch of `blocks` blocks of the kernel whose type is named `kernel_type` (typeid's
// name): empty when no trace is open or it is full (counted, and said when it is written).
Slot reserve(const char* kernel_type, int64_t blocks);
// Waits for the device, writes the trace as Chrome trace-event JSON (one event a block, a row a
// multiprocessor: Perfetto or chrome://tracing open it) to `json_path` and a table of the launches (first
// and last start, ready and end of their blocks, from the trace's first start, in microseconds) to
// `json_path` + ".tsv", and closes it. The device buffer stays allocated (a graph captured while the trace
// was open still writes into it when replayed).
void write_and_close(const std::string& json_path);

#if defined(__CUDACC__)
__device__ __forceinline__ unsigned long long global_nanoseconds() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ BlockRecord* block_record(const Slot& slot) {
  const auto block = blockIdx.x + static_cast<unsigned long long>(gridDim.x) * (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
  return slot.records + block;
}

__device__ __forceinline__ void block_started([[maybe_unused]] const Slot& slot) {
#if defined(TESSERA_TILE_TRACE)
  if (slot.records != nullptr && threadIdx.x == 0) {
    BlockRecord* r = block_record(slot);
    r->start = global_nanoseconds();
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    r->sm = sm;
  }
#endif
}

__device__ __forceinline__ void block_ready([[maybe_unused]] const Slot& slot) {
#if defined(TESSERA_TILE_TRACE)
  if (slot.records != nullptr && threadIdx.x == 0) block_record(slot)->ready = global_nanoseconds();
#endif
}

#if defined(TESSERA_TILE_TRACE)
// The block's record where the kernel body marks the block's steps: a staged kernel's roles (the pipeline's
// marks) and a kernel that waits for its predecessor in its body (the ready time). kernel_entry opens it before
// the body runs; only those kernels refer to it, so only they get its shared memory.
static __shared__ BlockRecord* body_record;
#endif

__device__ __forceinline__ void open_body_record([[maybe_unused]] const Slot& slot) {
#if defined(TESSERA_TILE_TRACE)
  if (threadIdx.x == 0) body_record = slot.records != nullptr ? block_record(slot) : nullptr;
#endif
}

// A block whose wait for its predecessor is not at its entry (a staged kernel whose producer started early,
// a kernel that waits in its body): the wait returned (the block's `ready`).
__device__ __forceinline__ void ready_in_body() {
#if defined(TESSERA_TILE_TRACE)
  if (BlockRecord* r = body_record) r->ready = global_nanoseconds();
#endif
}
// One thread of a role marks a step (the time replaces an earlier one of the same step).
__device__ __forceinline__ void mark([[maybe_unused]] Mark step) {
#if defined(TESSERA_TILE_TRACE)
  if (BlockRecord* r = body_record) r->marks[step] = global_nanoseconds();
#endif
}

// Warps of a staged kernel's roles return at different times: the block ends with the last.
__device__ __forceinline__ void warp_finished([[maybe_unused]] const Slot& slot) {
#if defined(TESSERA_TILE_TRACE)
  if (slot.records != nullptr && threadIdx.x % 32 == 0) atomicMax(&block_record(slot)->end, global_nanoseconds());
#endif
}
#endif

}  // namespace tessera::tile::cuda::trace
