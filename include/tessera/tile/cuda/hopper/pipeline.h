// The staged pipeline on Hopper: CONSUMERS warpgroups compute, one more warpgroup produces. The producer's
// first thread fills stages through the copy engine; each stage has a `full` barrier (the copy engine's
// bytes arrived) and an `empty` barrier (every consumer warp is done reading it). Stage index and phase run
// on across the tiles of a persistent block, so the producer fills the next tile's stages while the
// consumers finish the current one.
//
// Roles are compile-time: the kernel entry initialises the barriers, then runs the kernel body twice in the
// two branches of one if/else, once with a producer block and once with a consumer block. Each branch keeps
// only its role's code, and setmaxnreg moves registers from the producer to the consumers. Ping-pong
// consumers take the tiles in turn: the producer fills the stages of tile i for consumer i mod C, and each
// consumer steps its stage index and phase over the other consumers' stages.
// Inside consumers(), only consumer threads run: use no operation that synchronises the whole block.
// Clusters (PipelineShape's CLUSTER): the barriers are published to the cluster before either role starts,
// consumers release each stage to every block's producer, and a block leaves only with the whole cluster.
//
// The sm_80 form (compiled for every target from sm_80 on that is not sm_90a: TESSERA_SM80_PIPELINE) keeps the
// roles, stages and barriers, with what GPUs before Hopper have: every producer thread copies its 16-byte
// pieces of a stage with cp.async (into the copy engine's swizzled layout) and arrives on the stage's full
// barrier when they land (cp.async.mbarrier.arrive), the consumers multiply with mma.sync from ldmatrix, which
// is synchronous, so each stage is released as soon as the loop moves past it; no register reallocation.
// It runs cooperative consumers without clusters or resident tiles, and the consumers store from registers
// (no store_async): the shapes launchers offer there (the matmul's sm80_ configurations).
#pragma once
#include <type_traits>

#include "tessera/tile/cuda/hopper/slices.h"
#include "tessera/tile/cuda/hopper/sync.h"
#include "tessera/tile/cuda/hopper/tma.h"
#include "tessera/tile/cuda/hopper/wgmma.h"
#include "tessera/tile/cuda/trace.h"
#include "tessera/tile/staged.h"

namespace tessera::tile::cuda {

enum class Role { producer, consumer };

// The block of a staged kernel as one role sees it.
template <int TH, Role ROLE>
struct RoleBlock : Block<TH> {};

namespace hopper {
template <class Shape>
struct PipelineMemory {
  unsigned char* resident;
  unsigned char* stages;
  unsigned char* store;  // two staging buffers per consumer warpgroup (store_async), when the shape has them
  uint64_t* full;
  uint64_t* empty;
  uint64_t* turn;  // ping-pong: consumer g may start its next mainloop once turn[g] completes a phase
  uint64_t* resident_full;
  uint64_t* resident_empty;
  uint64_t* store_loaded;  // per staging buffer: a box of the tensor store_async adds has arrived in it
  __device__ static PipelineMemory get() {
    extern __shared__ unsigned char shared_base[];
    const uintptr_t raw = reinterpret_cast<uintptr_t>(shared_base);
    PipelineMemory m;
    m.resident = reinterpret_cast<unsigned char*>((raw + 1023) / 1024 * 1024);
    m.stages = m.resident + Shape::resident_bytes;
    m.store = m.stages + Shape::stages * Shape::stage_stride;
    m.full = reinterpret_cast<uint64_t*>(m.store + Shape::store_bytes);
    m.empty = m.full + Shape::stages;
    m.turn = m.empty + Shape::stages;
    m.resident_full = m.turn + Shape::consumers;
    m.resident_empty = m.resident_full + 1;
    m.store_loaded = m.resident_empty + 1;
    return m;
  }
};

// Registers per thread of each role. A block starts with the registers its launch bounds give every thread
// (the register file's share for BLOCKS blocks, a multiple of 8 a thread) and setmaxnreg only moves them
// between its warps: the consumers get what the producer leaves, a multiple of 8, at most 240. Counted from the
// whole register file instead, two blocks of two consumer warpgroups asked for 104 registers a consumer thread
// out of a block's 80 x 384 (the share of 85 rounded down), and setmaxnreg.inc waited forever for them (H100).
// Where that leaves the consumers fewer than 112, the producer keeps only setmaxnreg's least, 24.
template <class Shape, int BLOCKS = 1>
struct RegisterSplit {
  static constexpr int threads = 128 * (Shape::consumers + 1);
  static constexpr int at_entry = (65536 / (BLOCKS * threads) > 255 ? 255 : 65536 / (BLOCKS * threads)) / 8 * 8;
  static constexpr int pool = at_entry * threads;
  static constexpr int share(int producer_regs) { return (pool - 128 * producer_regs) / (Shape::consumers * 128) / 8 * 8; }
  static constexpr int producer = share(40) >= 112 ? 40 : 24;
  static constexpr int consumer = share(producer) > 240 ? 240 : share(producer);
  static_assert(128 * producer + Shape::consumers * 128 * consumer <= pool, "the roles' registers exceed the block's");
};

// The blocks per multiprocessor a kernel asks for (`static constexpr int min_blocks_per_sm`), 1 if it does not.
template <class Kernel>
constexpr int blocks_per_multiprocessor() {
  if constexpr (requires { Kernel::min_blocks_per_sm; }) return Kernel::min_blocks_per_sm;
  else return 1;
}
}  // namespace hopper

// Arrivals that fill a stage: on Hopper the producer thread that announces the copy engine's bytes; on sm_80,
// and in a pipeline of CopiedByThreads shape, every producer thread, once its own cp.async pieces of the stage
// have landed (barrier_arrive_on_copies).
template <class Shape>
inline constexpr bool filled_by_threads = TESSERA_SM80_PIPELINE || copied_by_threads_v<Shape>;
template <class Shape>
inline constexpr int full_arrivals = filled_by_threads<Shape> ? 128 : 1;

// A block's wait for the kernel before it where the body waits, not kernel_entry: the wait, then the kernel after
// this one may start, and a traced build marks the block ready. Every thread that reads what the kernel before
// may have written calls it first.
__device__ __forceinline__ void wait_for_predecessor_in_body() {
  hopper::wait_for_predecessor();
  hopper::let_dependents_start();
  if (threadIdx.x == 0) trace::ready_in_body();
}

// Runs a staged kernel's body once per role (called by the kernel entry).
// producer_early: the kernel's producer_starts_early(params) held, and no role has waited for the kernel before
// this one yet: the consumers wait here, the producer where the kernel calls wait_for_predecessor.
template <class Kernel, class Params>
__device__ __forceinline__ void run_staged(const Params& params, bool producer_early) {
  using Shape = typename Kernel::Pipe;
  const auto mem = hopper::PipelineMemory<Shape>::get();
  if (threadIdx.x == 0) {
    for (int s = 0; s < Shape::stages; ++s) {
      hopper::barrier_init(&mem.full[s], full_arrivals<Shape>);
      // One arrival per warp that read it, in every block of the cluster (their producers fill it too).
      hopper::barrier_init(&mem.empty[s], Shape::consumers_per_tile * 4 * Shape::cluster);
    }
    for (int g = 0; g < Shape::consumers; ++g) hopper::barrier_init(&mem.turn[g], 4);
    hopper::barrier_init(mem.resident_full, 1);
    hopper::barrier_init(mem.resident_empty, Shape::consumers_per_tile * 4);
    for (int b = 0; b < Shape::store_barriers; ++b) hopper::barrier_init(&mem.store_loaded[b], 1);
    hopper::barrier_init_fence();
  }
  if constexpr (Shape::cluster > 1) hopper::cluster_sync();  // the other blocks' copies and arrivals come here
  else __syncthreads();
  if (hopper::warpgroup() == Shape::consumers) {
    hopper::registers_decrease<hopper::RegisterSplit<Shape, hopper::blocks_per_multiprocessor<Kernel>()>::producer>();
    RoleBlock<Shape::threads, Role::producer> blk;
    Kernel{}(blk, params);
    if constexpr (filled_by_threads<Shape>) hopper::copies_wait_all();
  } else {
    hopper::registers_increase<hopper::RegisterSplit<Shape, hopper::blocks_per_multiprocessor<Kernel>()>::consumer>();
    if (producer_early) wait_for_predecessor_in_body();
    RoleBlock<Shape::threads, Role::consumer> blk;
    Kernel{}(blk, params);
    if (threadIdx.x == 0) trace::mark(trace::consumer_returned);
    if constexpr (Shape::store_bytes > 0) hopper::bulk_wait_all();  // the copy engine's stores out of shared memory
  }
  // The other blocks' consumers may still arrive on this block's barriers: stay until they are done.
  if constexpr (Shape::cluster > 1) hopper::cluster_sync();
}

template <class Shape, Role ROLE>
class Pipeline {
 public:
  using StageT = typename Shape::Stage;
  static constexpr int consumer_count = Shape::consumers, consumers_per_tile = Shape::consumers_per_tile;
  static constexpr Consumers mode = Shape::mode;

  __device__ Pipeline() : mem_(hopper::PipelineMemory<Shape>::get()) {}

  // The producer role: load(stage, k) fills stage with slice k, for k in [0, k_tiles). One thread issues.
  template <class F>
  __device__ void producer(int64_t k_tiles, F&& load) {
    if constexpr (ROLE == Role::consumer) {
      pending_ = k_tiles;  // ping-pong: the stages a consumer skips when the tile is not its turn
    } else if constexpr (filled_by_threads<Shape>) {
      // Every producer thread copies its pieces of each stage (load_async, load_row_boxes_by_threads) and arrives
      // when they have landed. The sm_80 pipeline has cooperative consumers, no clusters and no resident tiles:
      // launchers pick other shapes on Hopper only.
      if constexpr (TESSERA_SM80_PIPELINE && (Shape::cluster != 1 || Shape::mode != Consumers::cooperative || Shape::Resident::bytes != 0)) __trap();
      for (int64_t k = 0; k < k_tiles; ++k) {
        hopper::barrier_wait(&mem_.empty[stage_], phase_ ^ 1);
        StageT s = stage_at(stage_);
        load(s, k);
        hopper::barrier_arrive_on_copies(&mem_.full[stage_]);
        advance();
      }
    } else {
      if (hopper::thread_in_warpgroup() != 0) return;
      for (int64_t k = 0; k < k_tiles; ++k) {
        hopper::barrier_wait(&mem_.empty[stage_], phase_ ^ 1);
        hopper::barrier_arrive_expect_bytes(&mem_.full[stage_], uint32_t(StageT::bytes));
        StageT s = stage_at(stage_);
        load(s, k);
        if (k == 0) trace::mark(trace::first_copy_issued);
        advance();
      }
    }
  }

  // Inside the producer's load function of a kernel whose producer starts early (producer_starts_early, in
  // tile/staged.h): waits, from here on, for the kernel before this one to finish, before loading what it
  // writes. Elsewhere it returns at once (every other role and kernel waited at the start).
  __device__ void wait_for_predecessor() {
    if constexpr (ROLE == Role::producer) hopper::wait_for_predecessor();
  }

  // The consumer roles run f; the producer skips it. Ping-pong: only the consumer whose turn it is runs f
  // (the tile's whole work); the others move past the tile's stages.
  template <class F>
  __device__ void consumers(F&& f) {
    if constexpr (ROLE == Role::consumer) {
      if constexpr (Shape::mode == Consumers::pingpong) {
        if (turn_ == hopper::warpgroup()) {
          // Wait for the previous tile's consumer to finish its mainloop: then every stage it used has
          // completed its phase, and this consumer's waits (phases counted past the skipped stages) cannot
          // match an older phase. Only the block's first tile starts at once.
          if (tiles_seen_ > 0) {
            hopper::barrier_wait(&mem_.turn[turn_], turn_phase_);
            turn_phase_ ^= 1;
          }
          handed_over_ = false;
          f();
          hand_over();  // when f had no k loop
        } else {
          skip(pending_);
        }
        turn_ = turn_ + 1 == Shape::consumers ? 0 : turn_ + 1;
        ++tiles_seen_;
      } else {
        f();
      }
    }
  }

  // The stages of one k loop, in order: dereferencing waits until a stage is full; moving on releases the
  // previous stage once the tensor cores are done with it; the end of the loop waits for the last mma and
  // releases the last stage. `accs` are the accumulators the loop's mma calls write, one mma each a stage:
  // moving on waits until only the current stage's products may be pending, so the stage before is free.
  template <class Acc, int ACCS>
  class StageRange {
   public:
    template <class... More>
    __device__ StageRange(Pipeline& p, int64_t n, Acc& acc, More&... more) : p_(p), n_(n), accs_{&acc, &more...} {}
    __device__ ~StageRange() {
      if constexpr (TESSERA_SM80_PIPELINE) return;  // each step released its stage (operator++)
      // Waits even after an empty loop: ptxas cannot see that no mma ran then, and would put its own wait
      // (warning C7517) where the two paths meet.
      hopper::wgmma_wait<0>();
#pragma unroll
      for (int i = 0; i < ACCS; ++i)
#pragma unroll
        for (int e = 0; e < Acc::layout::size; ++e) hopper::fence_register(accs_[i]->v[e]);
      if (n_ > 0 && !p_.previous_released_) p_.arrive_empty(p_.previous_);
      p_.hand_over();  // ping-pong: the mainloop is done, the next consumer may start its own
    }
    struct iterator {
      StageRange* r;
      int64_t k;
      __device__ StageT operator*() const {
        hopper::barrier_wait(&r->p_.mem_.full[r->p_.stage_], r->p_.phase_);
        if constexpr (copied_by_threads_v<Shape>) hopper::fence_proxy_async_shared();  // cp.async wrote it, wgmma reads it
        if (k == 0 && threadIdx.x == 0) trace::mark(trace::first_stage_full);
        return r->p_.stage_at(r->p_.stage_);
      }
      __device__ iterator& operator++() {
        if constexpr (TESSERA_SM80_PIPELINE) {
          // mma.sync has read its operands by the time the warp issues past it: the stage is free now.
          if (!r->p_.current_released_) r->p_.arrive_empty(r->p_.stage_);
          r->p_.current_released_ = false;
          r->p_.advance();
          ++k;
          return *this;
        }
        hopper::wgmma_wait<ACCS>();  // the mmas of the stage before this one are done; this stage's may run on
        if (k > 0 && !r->p_.previous_released_) r->p_.arrive_empty(r->p_.previous_);
        r->p_.previous_ = r->p_.stage_;
        r->p_.previous_released_ = r->p_.current_released_;
        r->p_.current_released_ = false;
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
    Acc* accs_[ACCS];
  };

  template <class Acc, class... More>
  __device__ StageRange<Acc, 1 + sizeof...(More)> stages(int64_t k_tiles, Acc& acc, More&... more) {
    static_assert((std::is_same_v<Acc, More> && ...), "the accumulators of one k loop share a shape");
    return StageRange<Acc, 1 + sizeof...(More)>(*this, k_tiles, acc, more...);
  }

  // Inside a k loop, after mma_wait on every product that read the current stage: the producer may refill it
  // now, a stage earlier than the loop would let it (which keeps the last product in flight into the next
  // step). Memory-bound loops gain a stage of loads in flight.
  __device__ void release(const StageT&) {
    if constexpr (ROLE == Role::consumer) {
      arrive_empty(stage_);
      current_released_ = true;
    }
  }

  // Resident tiles (PipelineShape's Resident): the producer fills them once per unit of work, before its
  // stages (load_resident: load(resident) issues the copies); the consumers wait for them (resident()) and
  // give them back when their last product that reads them is done (release_resident), after which the
  // producer may fill them for the next unit.
  using ResidentT = typename Shape::Resident;
  template <class F>
  __device__ void load_resident(F&& load) {
    if constexpr (ROLE == Role::producer) {
      if (hopper::thread_in_warpgroup() == 0) {
        hopper::barrier_wait(mem_.resident_empty, resident_phase_ ^ 1);
        hopper::barrier_arrive_expect_bytes(mem_.resident_full, uint32_t(ResidentT::bytes));
        ResidentT r = resident_tiles();
        load(r);
      }
      resident_phase_ ^= 1;
    }
  }
  __device__ ResidentT resident() {
    hopper::barrier_wait(mem_.resident_full, resident_phase_);
    return resident_tiles();
  }
  __device__ void release_resident() {
    if constexpr (ROLE == Role::consumer) {
      __syncwarp();
      if (hopper::lane() == 0) hopper::barrier_arrive(mem_.resident_empty);
      resident_phase_ ^= 1;
    }
  }

  // A stage held outside a k loop of stages(): acquire() waits for the next stage to be full and hands it
  // out, release(held) gives it back to the producer once the tensor cores are done with it (after mma_wait).
  // Stages are acquired in order; several may be held at once (attention multiplies the values of step j - 1
  // while the keys of step j arrive), fewer than the pipeline has, so that the producer keeps loading.
  struct Held : StageT {
    int index;
  };
  __device__ Held acquire() {
    static_assert(Shape::mode == Consumers::cooperative, "acquire: cooperative consumers only");
    Held h;
    hopper::barrier_wait(&mem_.full[stage_], phase_);
    if constexpr (copied_by_threads_v<Shape>) hopper::fence_proxy_async_shared();  // cp.async wrote it, wgmma reads it
#if defined(TESSERA_TILE_TRACE)
    if (threadIdx.x == 0 && traced_acquires_++ == 0) trace::mark(trace::first_stage_full);
#endif
    static_cast<StageT&>(h) = stage_at(stage_);
    h.index = stage_;
    advance();
    return h;
  }
  __device__ void release(const Held& h) {
    if constexpr (ROLE == Role::consumer) arrive_empty(h.index);
  }

  // Consumer warpgroups taking turns at the tensor cores (FlashAttention-3's ping-pong): inside the scope of
  // take(), warpgroup g issues its products while the others wait, in the order 0, 1, ..., 0, 1, ...; so one
  // warpgroup's softmax runs while another's products keep the tensor cores busy. Each consumer takes
  // exactly `turns` turns. Named barriers 8 + g: warpgroup g waits on its own and passes to the next; the
  // last warpgroup opens the first round and does not pass on after its last turn, so none is left pending.
  // (On an H200 the prefill attention kernel with turns against the same without: 3.81 against 4.13 ms at
  // 16 heads x 16k x 16k, head dim 128; head dim 64 and short sequences alike or better.)
  class MmaTurns {
   public:
    __device__ explicit MmaTurns(int64_t turns) : left_(turns) {
      if (kRing && group() == Shape::consumers - 1 && left_ > 0) hopper::consumer_arrive(8, 256);
    }
    class Turn {  // passes the turn on when it goes out of scope; not copyable, so it passes once
     public:
      __device__ explicit Turn(MmaTurns* t) : t_(t) {}
      Turn(const Turn&) = delete;
      Turn& operator=(const Turn&) = delete;
      __device__ ~Turn() { t_->pass(); }

     private:
      MmaTurns* t_;
    };
    __device__ Turn take() {
      if (kRing) hopper::consumer_sync(8 + group(), 256);
      return Turn(this);
    }

   private:
    static constexpr bool kRing = ROLE == Role::consumer && Shape::consumers >= 2;
    __device__ static int group() { return hopper::warpgroup(); }
    __device__ void pass() {
      --left_;
      if (kRing && !(group() == Shape::consumers - 1 && left_ == 0))
        hopper::consumer_arrive(8 + (group() + 1) % Shape::consumers, 256);
    }
    int64_t left_;
  };
  __device__ MmaTurns mma_turns(int64_t turns) {
    static_assert(Shape::mode == Consumers::cooperative, "mma_turns: cooperative consumers only");
    return MmaTurns(turns);
  }

  // For work split over blocks (split-K): each of the `arrivals` parts of one piece of work calls this once,
  // after storing its partial results; true for the last to arrive, which then sees every part's stores. The
  // last resets the counter (zero before the first arrival) for the next launch. All consumer threads call it.
  __device__ bool last_arrival(int32_t* counter, int64_t arrivals) {
    if constexpr (ROLE == Role::consumer) {
      // The warpgroups of this tile: all consumers, or (ping-pong) this one alone, on its own named barrier.
      constexpr bool alone = Shape::mode == Consumers::pingpong;
      const int group = alone ? hopper::warpgroup() : 0;
      __shared__ int last[Shape::consumers];
      // One thread publishes the tile's stores, as CUTLASS's split-K semaphore does: after the barrier, its
      // acquire-release add orders every thread's stores before the count (fences are cumulative) and, for
      // the last part, every other part's stores before this block's reads. A sequentially consistent fence
      // in every thread (__threadfence) cost each consumer warp a full memory barrier.
      hopper::consumer_sync(1 + group, Shape::consumers_per_tile * 128);
      if (threadIdx.x == group * 128) {
        last[group] = hopper::atomic_add_acq_rel(counter, 1) == arrivals - 1;
        if (last[group]) *counter = 0;  // no other part touches it again in this launch
      }
      hopper::consumer_sync(1 + group, Shape::consumers_per_tile * 128);
      // Read before the next call's first sync, after which the first thread may write `last` again.
      return last[group];
    } else {
      (void)counter; (void)arrivals;
      return false;
    }
  }

  // Stores an accumulator tile of the consumers through the copy engine. Each warp writes its 16 rows in
  // boxes of 16 rows x 128 bytes into its two staging buffers in turn (swizzled as the box's tensor map
  // expects, so the writes are free of bank conflicts), and its first lane hands each box to the copy engine,
  // which clips it to the tensor (no bounds tests here). A buffer is written again only once the copy engine
  // has read it. Warps need not wait for each other. All consumer threads of the tile call it, and `dst` must
  // pass tma_store_compatible (the copy engine writes rows in whole 16-byte pieces). Against
  // stores from registers (store): whole 128-byte lines to L2, and a few hundred instructions instead of
  // thousands tested per element pair, which ran cold from the instruction cache once per tile (128 x 256
  // tiles: a quarter of the consumers' time at 4096^3, Nsight Compute, H200).
  template <int TH, class T, int BR, int BC, int M, int N, int C>
  __device__ void store_async(const Block<TH>&, const TmaTensor<T, BR, BC>& dst, Coord at,
                              const Tile<T, WgmmaAcc<M, N, C>>& t) {
    store_boxes<false>(dst, at, t, dst);
  }

  // The same into plane `plane` of a stack of matrices (a batch's outputs): the copy engine clips each box to
  // the plane, so a tile that overhangs its matrix writes nothing into the next.
  template <int TH, class T, int BR, int BC, int M, int N, int C>
  __device__ void store_async(const Block<TH>&, const TmaTensor<T, BR, BC, 3>& dst, int64_t plane, Coord at,
                              const Tile<T, WgmmaAcc<M, N, C>>& t) {
    store_boxes<false>(dst, at, t, dst, int32_t(plane));
  }

  // The same through `through`, a shared tile of the tile's shape that its consumers no longer read (attention's
  // query tile after the last product), instead of the pipeline's staging buffers, which a kernel whose shared
  // memory is full of stages cannot spare. Each warp writes its 16 rows of every 128-byte panel into their place
  // in `through` (swizzled as the tensor maps expect), and its first lane hands them to the copy engine as boxes
  // of 16 rows x 128 bytes and waits until they have been read, so that `through` may be released or the block
  // end right after. Warps need not wait for each other. Against stores from registers: whole lines instead of
  // 4-byte pieces scattered over 8 rows an instruction, and the block's last instructions no longer wait on them.
  template <int TH, class T, int BR, int BC, int M, int N, int C>
  __device__ void store_async(const Block<TH>&, const TmaTensor<T, BR, BC, 3>& dst, int64_t plane, Coord at,
                              const Tile<T, WgmmaAcc<M, N, C>>& t, const SharedTile<T, M, N>& through) {
    static_assert(BR == 16 && BC * sizeof(T) == 128 && N % BC == 0, "boxes of 16 rows x 128 bytes");
    if constexpr (ROLE == Role::consumer) {
      using L = WgmmaAcc<M, N, C>;
      const int w = hopper::thread_in_warpgroup() / 32, l = hopper::lane();
      const int first_row = L::first_row() + 16 * w;  // a shuffle: the whole warp takes it
      unsigned char* panels = reinterpret_cast<unsigned char*>(through.data);
#pragma unroll
      for (int s = 0; s < L::slices; ++s)
#pragma unroll
        for (int q = 0; q < N / BC; ++q)
#pragma unroll
          for (int j = 0; j < BC / 8; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const int e = s * L::per_slice + (q * (BC / 8) + j) * 4 + 2 * h;
              const int r = first_row + 64 * s + l / 4 + 8 * h;  // r % 8 == l / 4
              const int byte = (8 * j + 2 * (l % 4)) * int(sizeof(T));
              const int swizzled = ((byte / 16) ^ (l / 4)) * 16 + byte % 16;
              *reinterpret_cast<detail::pair_of<T>*>(panels + (q * M + r) * 128 + swizzled) = {t.v[e], t.v[e + 1]};
            }
      hopper::fence_proxy_async_shared();
      __syncwarp();
      if (l == 0) {
#pragma unroll
        for (int s = 0; s < L::slices; ++s)
#pragma unroll
          for (int q = 0; q < N / BC; ++q) {
            const int r = first_row + 64 * s;
            hopper::tma_store_3d(&dst.descriptor, panels + (q * M + r) * 128, int32_t(at.col + q * BC),
                                 int32_t(at.row + r), int32_t(plane));
          }
        hopper::bulk_commit();
        hopper::bulk_wait_read<0>();
      }
      __syncwarp();
    } else {
      (void)dst; (void)plane; (void)at; (void)t; (void)through;
    }
  }

  // Stores T(t + add), `add` read at the same place (an epilogue's residual): the copy engine first loads each
  // box of `add` into the staging buffer the box of the sum then leaves from, and each thread adds its own
  // elements there, in fp32, before the one rounding to T. `add` may be `dst` itself (a residual added in
  // place: each box is read before it is written). No per-element loads with bounds tests (load_like over a
  // 128 x 256 fp32 residual: ~40 us of a 140 us projection, H200).
  template <int TH, class T, int BR, int BC, int M, int N, int C>
  __device__ void store_async(const Block<TH>&, const TmaTensor<T, BR, BC>& dst, Coord at,
                              const Tile<float, WgmmaAcc<M, N, C>>& t, const TmaTensor<T, BR, BC>& add) {
    store_boxes<true>(dst, at, t, add);
  }

  // Rows [first_row, R) of a stage's tile read as zeros from here on (values past a sequence's end may hold
  // anything, and 0 * NaN is NaN in the next mma). All consumer threads of the tile call it, after the stage
  // is full; it returns when the zeros are visible to the tensor cores. Whole rows are cleared, so the
  // swizzle does not matter: row r of panel p is the 128 bytes at (p R + r) 128.
  template <class T, int R, int C>
  __device__ void zero_rows(const SharedTile<T, R, C>& t, int first_row) {
    if constexpr (ROLE == Role::consumer) {
      constexpr int panels = int(C * sizeof(T) / 128), threads = consumers_per_tile * 128;
      constexpr bool alone = Shape::mode == Consumers::pingpong;
      const int group = alone ? hopper::warpgroup() : 0;
      const int me = alone ? hopper::thread_in_warpgroup() : int(threadIdx.x);
      const int first = first_row < 0 ? 0 : first_row, rows = R - first;
      unsigned char* base = reinterpret_cast<unsigned char*>(t.data);
      for (int i = me; i < panels * rows * 8; i += threads) {
        const int panel = i / (rows * 8), chunk = i % (rows * 8);
        *reinterpret_cast<uint4*>(base + (panel * R + first) * 128 + chunk * 16) = make_uint4(0, 0, 0, 0);
      }
      hopper::fence_proxy_async_shared();
      hopper::consumer_sync(1 + group, threads);
    } else {
      (void)t; (void)first_row;
    }
  }

  // Combinations over the slices of a sliced tile (hopper/slices.h; host/slices.h has the contract): the 4 C
  // warps of the C cooperative consumer warpgroups. All consumer threads call them, after the block's last
  // stage: the accumulator's sum goes through the stages' shared memory, which nothing reads or fills any more
  // by then.
  static constexpr int kSliceWarps = 4 * Shape::consumers_per_tile;
  __device__ Tile<float, SliceRows<kSliceWarps>> slice_max(const Tile<float, WgmmaRows<16 * kSliceWarps, Shape::consumers_per_tile>>& t) {
    static_assert(Shape::mode == Consumers::cooperative, "sliced tiles: cooperative consumers");
    if constexpr (ROLE == Role::consumer) return hopper::combine_slice_rows(t, detail::Max{});
    else return {};
  }
  __device__ Tile<float, SliceRows<kSliceWarps>> slice_sum(const Tile<float, WgmmaRows<16 * kSliceWarps, Shape::consumers_per_tile>>& t) {
    static_assert(Shape::mode == Consumers::cooperative, "sliced tiles: cooperative consumers");
    if constexpr (ROLE == Role::consumer) return hopper::combine_slice_rows(t, detail::Sum{});
    else return {};
  }
  // Each warp writes its slice as it holds it (element e of lane l at float4 e / 4 of row l: conflict-free),
  // then reads back, from every slice, the elements of its own share of the columns: the same lane holds the
  // same (row, column) in every slice.
  template <int N>
  __device__ Tile<float, SliceCols<N, kSliceWarps>> slice_sum(
      const Tile<float, WgmmaAcc<16 * kSliceWarps, N, Shape::consumers_per_tile>>& t) {
    static_assert(Shape::mode == Consumers::cooperative, "sliced tiles: cooperative consumers");
    constexpr int S = kSliceWarps;
    using L = WgmmaAcc<16 * S, N, Shape::consumers_per_tile>;
    static_assert(S * L::size * 32 * sizeof(float) <= Shape::stages * Shape::stage_stride,
                  "slice_sum: the stages' shared memory holds every slice");
    Tile<float, SliceCols<N, S>> out;
    if constexpr (ROLE == Role::consumer) {
      const int l = hopper::lane(), w = int(threadIdx.x) / 32;
      const uint32_t scratch = hopper::shared_address(mem_.stages);
      constexpr int chunks = L::size / 4, mine = SliceCols<N, S>::size / 4;
      auto at = [&](int slice, int chunk) { return scratch + uint32_t(((slice * chunks + chunk) * 32 + l) * 16); };
      hopper::consumer_sync(1, 32 * S);  // every warp is done with the stages
#pragma unroll
      for (int c = 0; c < chunks; ++c) hopper::store_shared(at(w, c), t.v[4 * c], t.v[4 * c + 1], t.v[4 * c + 2], t.v[4 * c + 3]);
      hopper::consumer_sync(1, 32 * S);
#pragma unroll
      for (int c = 0; c < mine; ++c) {
        float sum[4];
        hopper::load_shared(at(0, c + w * mine), sum);
#pragma unroll
        for (int s = 1; s < S; ++s) {
          float x[4];
          hopper::load_shared(at(s, c + w * mine), x);
#pragma unroll
          for (int i = 0; i < 4; ++i) sum[i] += x[i];
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) out.v[4 * c + i] = sum[i];
      }
    } else {
      (void)t;
      out = {};  // the producer role never calls it; defined so that nvcc does not warn (#549)
    }
    return out;
  }

 private:
  template <bool ADD, class T, int BR, int BC, int RANK, class U, int M, int N, int C>
  __device__ void store_boxes(const TmaTensor<T, BR, BC, RANK>& dst, Coord at, const Tile<U, WgmmaAcc<M, N, C>>& t,
                              const TmaTensor<T, BR, BC, RANK>& add, int32_t plane = 0) {
    static_assert(!std::is_void_v<typename Shape::Out> && sizeof(typename Shape::Out) == sizeof(T),
                  "store_async: the pipeline shape's OUT is the stored element type");
    static_assert(!ADD || RANK == 2, "store_async with an addend: matrices (rank-2 maps)");
    static_assert(BR == 16 && BC * sizeof(T) == 128 && N % BC == 0, "boxes of 16 rows x 128 bytes");
    if constexpr (ROLE == Role::consumer) {
      using L = WgmmaAcc<M, N, C>;
      constexpr int box_bytes = 16 * 128;
      static_assert(4 * 2 * box_bytes == kStoreBufferBytes, "two boxes per warp of a consumer warpgroup");
      const int me = hopper::thread_in_warpgroup(), w = me / 32, l = me % 32, g = hopper::warpgroup();
      unsigned char* buffers = mem_.store + g * kStoreBufferBytes + w * 2 * box_bytes;
      uint64_t* loaded = mem_.store_loaded + (g * 4 + w) * 2;
      // Taken here, with the whole warp: the warpgroup index is a warp shuffle, which the first lane alone may
      // not run (cooperative tiles: an illegal instruction, hangs, or rows stored at the wrong place).
      const int32_t first_row = int32_t(at.row + L::first_row() + 16 * w);
      // The previous tile's boxes have left the buffers (long ago: a whole main loop ran since).
      if (l == 0) hopper::bulk_wait_read<0>();
      __syncwarp();
      int box = 0;
#pragma unroll
      for (int s = 0; s < L::slices; ++s) {
#pragma unroll
        for (int q = 0; q < N / BC; ++q, ++box) {
          unsigned char* buf = buffers + (box % 2) * box_bytes;
          const int32_t col = int32_t(at.col + q * BC), row = first_row + 64 * s;
          if (box >= 2) {  // the box before last was in this buffer
            if (l == 0) hopper::bulk_wait_read<1>();
            __syncwarp();
          }
          if constexpr (ADD) {
            if (l == 0) {
              hopper::barrier_arrive_expect_bytes(&loaded[box % 2], uint32_t(box_bytes));
              hopper::tma_load_2d(buf, &add.descriptor, col, row, &loaded[box % 2]);
            }
            hopper::barrier_wait(&loaded[box % 2], (loaded_phases_ >> (box % 2)) & 1u);
            loaded_phases_ ^= 1u << (box % 2);
          }
#pragma unroll
          for (int j = 0; j < BC / 8; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const int e = s * L::per_slice + (q * (BC / 8) + j) * 4 + 2 * h;  // register 4 j + 2 h + p
              const int r = l / 4 + 8 * h;                                      // r % 8 == l / 4
              const int byte = (8 * j + 2 * (l % 4)) * int(sizeof(T));
              const int swizzled = ((byte / 16) ^ (l / 4)) * 16 + byte % 16;
              auto* slot = reinterpret_cast<detail::pair_of<T>*>(buf + r * 128 + swizzled);
              if constexpr (ADD) {
                const auto old = *slot;
                *slot = {convert_element<T>(convert_element<float>(old.x) + t.v[e]),
                         convert_element<T>(convert_element<float>(old.y) + t.v[e + 1])};
              } else {
                *slot = {t.v[e], t.v[e + 1]};
              }
            }
          hopper::fence_proxy_async_shared();
          __syncwarp();
          if (l == 0) {
            if constexpr (RANK == 3) hopper::tma_store_3d(&dst.descriptor, buf, col, row, plane);
            else hopper::tma_store_2d(&dst.descriptor, buf, col, row);
            hopper::bulk_commit();
          }
        }
      }
    } else {
      (void)dst; (void)at; (void)t; (void)add; (void)plane;
    }
  }

  __device__ StageT stage_at(int s) const {
    return tiles_at<StageT>(mem_.stages + s * Shape::stage_stride, &mem_.full[s]);
  }
  __device__ ResidentT resident_tiles() const { return tiles_at<ResidentT>(mem_.resident, mem_.resident_full); }
  __device__ void advance() {
    if (++stage_ == Shape::stages) { stage_ = 0; phase_ ^= 1; }
  }
  // Ping-pong: lets the next consumer start its mainloop, once per tile (the first k loop's end).
  __device__ void hand_over() {
    if constexpr (Shape::mode == Consumers::pingpong && ROLE == Role::consumer) {
      if (handed_over_) return;
      handed_over_ = true;
      __syncwarp();
      if (hopper::lane() == 0) hopper::barrier_arrive(&mem_.turn[turn_ + 1 == Shape::consumers ? 0 : turn_ + 1]);
    }
  }
  __device__ void skip(int64_t n) {
    const int64_t to = stage_ + n;
    stage_ = int(to % Shape::stages);
    phase_ ^= uint32_t((to / Shape::stages) & 1);
  }
  __device__ void arrive_empty(int s) {
    if (threadIdx.x == 0) trace::mark(trace::last_stage_released);  // the last release's time stays
    __syncwarp();
    if constexpr (Shape::cluster == 1) {
      if (hopper::lane() == 0) hopper::barrier_arrive(&mem_.empty[s]);
    } else {  // lane r tells block r's producer, which multicasts into this block's stage too
      if (hopper::lane() < Shape::cluster) hopper::barrier_arrive_in_cluster(&mem_.empty[s], hopper::lane());
    }
  }

  hopper::PipelineMemory<Shape> mem_;
#if defined(TESSERA_TILE_TRACE)
  int traced_acquires_ = 0;
#endif
  uint32_t loaded_phases_ = 0;  // store_async adding: the phase each of this warp's two staging buffers waits for
  int stage_ = 0;
  uint32_t phase_ = 0;
  uint32_t resident_phase_ = 0;
  int previous_ = 0;
  bool previous_released_ = false, current_released_ = false;  // stages released early by release()
  int64_t pending_ = 0;  // ping-pong state (consumers): the current tile's stage count, whose turn it is,
  int turn_ = 0;         // tiles this block has passed, the phase of this consumer's turn barrier, and
  int64_t tiles_seen_ = 0;  // whether this tile's turn has been handed over
  uint32_t turn_phase_ = 0;
  bool handed_over_ = true;
};

template <class Shape, int TH, Role ROLE>
__device__ __forceinline__ Pipeline<Shape, ROLE> make_pipeline(const RoleBlock<TH, ROLE>&) {
  static_assert(TH == Shape::threads, "a staged kernel has (consumers + 1) x 128 threads");
  return Pipeline<Shape, ROLE>();
}

}  // namespace tessera::tile::cuda
