// The staged pipeline on Hopper: CONSUMERS warpgroups compute, one more warpgroup produces. The producer's
// first thread fills stages through the copy engine; each stage has a `full` barrier (the copy engine's
// bytes arrived) and an `empty` barrier (every consumer warp is done reading it). Stage index and phase run
// on across the tiles of a persistent block, so the producer fills the next tile's stages while the
// consumers finish the current one.
//
// Roles are compile-time: the kernel entry initialises the barriers, then runs the kernel body twice in the
// two branches of one if/else, once with a producer block and once with a consumer block. Each branch keeps
// only its role's code, and setmaxnreg moves registers from the producer to the consumers.
// Inside consumers(), only consumer threads run: use no operation that synchronises the whole block.
#pragma once
#include "tessera/tile/cuda/hopper/sync.h"
#include "tessera/tile/cuda/hopper/tma.h"
#include "tessera/tile/cuda/hopper/wgmma.h"
#include "tessera/tile/staged.h"

namespace tessera::tile::cuda {

enum class Role { producer, consumer };

// The block of a staged kernel as one role sees it.
template <int TH, Role ROLE>
struct RoleBlock : Block<TH> {};

namespace hopper {
template <class Shape>
struct PipelineMemory {
  unsigned char* stages;
  uint64_t* full;
  uint64_t* empty;
  __device__ static PipelineMemory get() {
    extern __shared__ unsigned char shared_base[];
    const uintptr_t raw = reinterpret_cast<uintptr_t>(shared_base);
    PipelineMemory m;
    m.stages = reinterpret_cast<unsigned char*>((raw + 1023) / 1024 * 1024);
    m.full = reinterpret_cast<uint64_t*>(m.stages + Shape::stages * Shape::stage_stride);
    m.empty = m.full + Shape::stages;
    return m;
  }
};

template <class Shape>
struct RegisterSplit {
  static constexpr int producer = 40;
  // What the 64K register file leaves each consumer thread, a multiple of 8, at most 240.
  static constexpr int fair = (65536 - 128 * producer) / (Shape::consumers * 128) / 8 * 8;
  static constexpr int consumer = fair > 240 ? 240 : fair;
};
}  // namespace hopper

// Runs a staged kernel's body once per role (called by the kernel entry).
template <class Kernel, class Params>
__device__ __forceinline__ void run_staged(const Params& params) {
  using Shape = typename Kernel::Pipe;
  const auto mem = hopper::PipelineMemory<Shape>::get();
  if (threadIdx.x == 0) {
    for (int s = 0; s < Shape::stages; ++s) {
      hopper::barrier_init(&mem.full[s], 1);
      hopper::barrier_init(&mem.empty[s], Shape::consumers * 4);  // one arrival per consumer warp
    }
    hopper::barrier_init_fence();
  }
  __syncthreads();
  if (hopper::warpgroup() == Shape::consumers) {
    hopper::registers_decrease<hopper::RegisterSplit<Shape>::producer>();
    RoleBlock<Shape::threads, Role::producer> blk;
    Kernel{}(blk, params);
  } else {
    hopper::registers_increase<hopper::RegisterSplit<Shape>::consumer>();
    RoleBlock<Shape::threads, Role::consumer> blk;
    Kernel{}(blk, params);
  }
}

template <class Shape, Role ROLE>
class Pipeline {
 public:
  using StageT = typename Shape::Stage;
  static constexpr int consumer_groups = Shape::consumers;

  __device__ Pipeline() : mem_(hopper::PipelineMemory<Shape>::get()) {}

  // The producer role: load(stage, k) fills stage with slice k, for k in [0, k_tiles). One thread issues.
  template <class F>
  __device__ void producer(int64_t k_tiles, F&& load) {
    if constexpr (ROLE == Role::producer) {
      if (hopper::thread_in_warpgroup() != 0) return;
      for (int64_t k = 0; k < k_tiles; ++k) {
        hopper::barrier_wait(&mem_.empty[stage_], phase_ ^ 1);
        hopper::barrier_arrive_expect_bytes(&mem_.full[stage_], uint32_t(StageT::bytes));
        StageT s = stage_at(stage_);
        load(s, k);
        advance();
      }
    }
  }

  // The consumer roles run f; the producer skips it.
  template <class F>
  __device__ void consumers(F&& f) {
    if constexpr (ROLE == Role::consumer) f();
  }

  // The stages of one k loop, in order: dereferencing waits until a stage is full; moving on releases the
  // previous stage once the tensor cores are done with it; the end of the loop waits for the last mma and
  // releases the last stage. `acc` is the accumulator the loop's mma calls write.
  template <class Acc>
  class StageRange {
   public:
    __device__ StageRange(Pipeline& p, int64_t n, Acc& acc) : p_(p), n_(n), acc_(acc) {}
    __device__ ~StageRange() {
      if (n_ == 0) return;
      hopper::wgmma_wait<0>();
#pragma unroll
      for (int e = 0; e < Acc::layout::size; ++e) hopper::fence_register(acc_.v[e]);
      p_.release(p_.previous_);
    }
    struct iterator {
      StageRange* r;
      int64_t k;
      __device__ StageT operator*() const {
        hopper::barrier_wait(&r->p_.mem_.full[r->p_.stage_], r->p_.phase_);
        return r->p_.stage_at(r->p_.stage_);
      }
      __device__ iterator& operator++() {
        hopper::wgmma_wait<1>();  // the mma of the stage before this one is done
        if (k > 0) r->p_.release(r->p_.previous_);
        r->p_.previous_ = r->p_.stage_;
        r->p_.advance();
        ++k;
        return *this;
      }
      __device__ bool operator!=(const iterator& o) const { return k != o.k; }
    };
    __device__ iterator begin() { return {this, 0}; }
    __device__ iterator end() { return {this, n_}; }

   private:
    Pipeline& p_;
    int64_t n_;
    Acc& acc_;
  };

  template <class Acc>
  __device__ StageRange<Acc> stages(int64_t k_tiles, Acc& acc) { return StageRange<Acc>(*this, k_tiles, acc); }

 private:
  __device__ StageT stage_at(int s) const {
    StageT st;
    unsigned char* p = mem_.stages + s * Shape::stage_stride;
    uint64_t* ready = &mem_.full[s];
    st.for_each([&](auto& t) {
      using Tl = std::remove_reference_t<decltype(t)>;
      t.data = reinterpret_cast<typename Tl::value_type*>(p);
      t.ready = ready;
      p += Tl::bytes;
    });
    return st;
  }
  __device__ void advance() {
    if (++stage_ == Shape::stages) { stage_ = 0; phase_ ^= 1; }
  }
  __device__ void release(int s) {
    __syncwarp();
    if (hopper::lane() == 0) hopper::barrier_arrive(&mem_.empty[s]);
  }

  hopper::PipelineMemory<Shape> mem_;
  int stage_ = 0;
  uint32_t phase_ = 0;
  int previous_ = 0;
};

template <class Shape, int TH, Role ROLE>
__device__ __forceinline__ Pipeline<Shape, ROLE> make_pipeline(const RoleBlock<TH, ROLE>&) {
  static_assert(TH == Shape::threads, "a staged kernel has (consumers + 1) x 128 threads");
  return Pipeline<Shape, ROLE>();
}

}  // namespace tessera::tile::cuda
