// Hopper synchronisation: transaction barriers (mbarrier) in shared memory, warpgroup roles, and the
// fences the tensor cores and the copy engine need. Compiled to instructions for sm_90a. Other targets from
// sm_80 on compile the staged pipeline's cp.async form (TESSERA_SM80_PIPELINE): the barriers, named barriers
// and atomics it needs exist there (mbarrier waits by test_wait instead of try_wait); what only Hopper has
// (the copy engine's byte counts, clusters) traps, and launchers never pick the kernels that use it there.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TESSERA_SM90A 1
#else
#define TESSERA_SM90A 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !TESSERA_SM90A
#define TESSERA_SM80_PIPELINE 1
#else
#define TESSERA_SM80_PIPELINE 0
#endif

namespace tessera::tile::cuda::hopper {

// The warpgroup index, broadcast from lane 0 so the compiler knows it is the same across the warp (branches
// on it then do not count as divergent around wgmma). A shuffle of the whole warp: never call it (or what
// calls it, e.g. WgmmaAcc::first_row) where only some lanes run.
__device__ __forceinline__ int warpgroup() { return __shfl_sync(0xffffffffu, int(threadIdx.x) / 128, 0); }
__device__ __forceinline__ int thread_in_warpgroup() { return int(threadIdx.x) % 128; }
__device__ __forceinline__ int lane() { return int(threadIdx.x) % 32; }

// Programmatic dependent launch (sm_90 on; nothing before): the calling thread waits until the kernels this
// one depends on have finished and their writes are visible to it; and lets the kernel after this one start
// its blocks (once every block of this one has said so or ended). A block says it only after it waited, so a
// kernel whose blocks have started knows the kernel two before it has finished (launch.h, kernel_entry).
__device__ __forceinline__ void wait_for_predecessor() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void let_dependents_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return uint32_t(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void barrier_init(uint64_t* bar, int count) {
#if TESSERA_SM90A
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count) : "memory");
#elif TESSERA_SM80_PIPELINE
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count) : "memory");
#else
  (void)bar; (void)count; __trap();
#endif
}

// Makes barrier initialisation visible to the copy engine and the other threads (then sync the block).
__device__ __forceinline__ void barrier_init_fence() {
#if TESSERA_SM90A
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

__device__ __forceinline__ void barrier_arrive(uint64_t* bar) {
#if TESSERA_SM90A
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
#elif TESSERA_SM80_PIPELINE
  // The state token goes to a register local to the asm: sm_80's PTX has no sink operand for it.
  asm volatile("{\n\t.reg .b64 state;\n\tmbarrier.arrive.shared.b64 state, [%0];\n\t}" ::"r"(shared_address(bar)) : "memory");
#else
  (void)bar;
#endif
}

// Arrives at the barrier at the same shared-memory offset in block `rank` of this block's cluster (this
// block's own included): a consumer telling every producer of the cluster that it is done with a stage.
__device__ __forceinline__ void barrier_arrive_in_cluster(uint64_t* bar, int rank) {
#if TESSERA_SM90A
  uint32_t remote = 0;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(shared_address(bar)), "r"(rank));
  // Release at CTA scope, as CUTLASS's cluster barrier does: the reads it orders were the tensor cores', done
  // by the time the consumer arrives. At cluster scope the arrival is a fence as well, and the consumer warps
  // of a 4096^3 matmul spent a third of their time stalled on it (Nsight Compute, H200).
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
#else
  (void)bar; (void)rank; __trap();
#endif
}

// Arrives and announces `bytes` that the copy engine will deliver to this barrier's phase.
__device__ __forceinline__ void barrier_arrive_expect_bytes(uint64_t* bar, uint32_t bytes) {
#if TESSERA_SM90A
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
#else
  (void)bar; (void)bytes;
#endif
}

// Counts `bytes` of the barrier's current phase as delivered by the copy engine, without a copy: for bytes
// announced (barrier_arrive_expect_bytes) that will not come.
__device__ __forceinline__ void barrier_complete_bytes(uint64_t* bar, uint32_t bytes) {
#if TESSERA_SM90A
  asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
#else
  (void)bar; (void)bytes;
#endif
}

// Waits until the phase of parity `phase` has completed. A fresh barrier counts parity 1 as completed.
__device__ __forceinline__ void barrier_wait(uint64_t* bar, uint32_t phase) {
#if TESSERA_SM90A
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "wait_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n"
      "}\n" ::"r"(shared_address(bar)),
      "r"(phase)
      : "memory");
#elif TESSERA_SM80_PIPELINE
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "wait_%=:\n"
      "mbarrier.test_wait.parity.shared.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n"
      "}\n" ::"r"(shared_address(bar)),
      "r"(phase)
      : "memory");
#else
  (void)bar; (void)phase;
#endif
}

// This block's rank in its cluster (0 without clusters).
__device__ __forceinline__ int cluster_rank() {
  uint32_t r = 0;
#if TESSERA_SM90A
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#endif
  return int(r);
}

// Every thread of every block of the cluster: what each did before is visible to all after (release,
// acquire). At the start of a clustered kernel it publishes the barriers' initialisation to the other
// blocks; at the end it keeps each block alive until no other block will write to its shared memory.
__device__ __forceinline__ void cluster_sync() {
#if TESSERA_SM90A
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
#else
  __trap();
#endif
}

// atomicAdd with acquire-release semantics at GPU scope: the stores this thread has seen (its own, and by
// cumulativity those a block barrier ordered before it) are visible to whoever sees the new value, and what
// the previous adders published is visible to this thread (and, after a barrier, to its block).
__device__ __forceinline__ int atomic_add_acq_rel(int32_t* p, int32_t v) {
  int old = 0;
#if TESSERA_SM90A || TESSERA_SM80_PIPELINE
  asm volatile("atom.add.acq_rel.gpu.global.s32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
#else
  (void)p; (void)v; __trap();
#endif
  return old;
}

// Synchronises `threads` consumer threads on named barrier `id` (1 and up; 0 is the whole block's), leaving
// the producer and other consumers out.
__device__ __forceinline__ void consumer_sync(int id, int threads) {
#if TESSERA_SM90A || TESSERA_SM80_PIPELINE
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
#else
  (void)id; (void)threads;
#endif
}

// Arrives at named barrier `id` without waiting: with `threads` counting the waiters and the arrivers, the
// waiters (consumer_sync) go on once every arriver has arrived.
__device__ __forceinline__ void consumer_arrive(int id, int threads) {
#if TESSERA_SM90A || TESSERA_SM80_PIPELINE
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
#else
  (void)id; (void)threads;
#endif
}

// sm_80's asynchronous copy (cp.async): 16 bytes from global to shared memory, of which the first `bytes`
// (0 to 16) are read and the rest written as zeros. `src` must be valid and 16-byte aligned even when `bytes`
// is 0. Bypasses L1 (.cg): a stage's tiles are read once.
__device__ __forceinline__ void copy_async_16(uint32_t dst, const void* src, uint32_t bytes) {
#if TESSERA_SM80_PIPELINE || TESSERA_SM90A
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
#else
  (void)dst; (void)src; (void)bytes; __trap();
#endif
}

// Arrives at the barrier once every cp.async this thread has issued so far has landed in shared memory (the
// arrival counts toward the barrier's expected count: one per thread that copies into a stage).
__device__ __forceinline__ void barrier_arrive_on_copies(uint64_t* bar) {
#if TESSERA_SM80_PIPELINE || TESSERA_SM90A
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(shared_address(bar)) : "memory");
#else
  (void)bar; __trap();
#endif
}

// Waits until every cp.async this thread has issued has landed (a producer thread's last act: its arrivals on
// the stages' barriers are then made too).
__device__ __forceinline__ void copies_wait_all() {
#if TESSERA_SM80_PIPELINE || TESSERA_SM90A
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

// Makes this thread's ordinary shared-memory writes visible to the tensor cores and the copy engine (the
// async proxy), which read shared memory on their own path.
__device__ __forceinline__ void fence_proxy_async_shared() {
#if TESSERA_SM90A
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

__device__ __forceinline__ void wgmma_fence() {
#if TESSERA_SM90A
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmma_commit() {
#if TESSERA_SM90A
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#endif
}
template <int PENDING>
__device__ __forceinline__ void wgmma_wait() {
#if TESSERA_SM90A
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(PENDING) : "memory");
#endif
}

// Keeps the compiler from moving reads or writes of an accumulator register across asynchronous wgmma.
__device__ __forceinline__ void fence_register(float& r) { asm volatile("" : "+f"(r)::"memory"); }

// Gives registers back (producer) or takes more (consumers) for the rest of the kernel.
template <int REGS>
__device__ __forceinline__ void registers_decrease() {
#if TESSERA_SM90A
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGS));
#endif
}
template <int REGS>
__device__ __forceinline__ void registers_increase() {
#if TESSERA_SM90A
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGS));
#endif
}

}  // namespace tessera::tile::cuda::hopper
