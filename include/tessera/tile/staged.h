// What staged (pipelined) kernels and both backends share: shared-memory tiles, pipeline stages, tensors the
// copy engine reads tile by tile, and the persistent tile schedule.
//
// A staged kernel reads like this (see src/ops/matmul/matmul_staged.tile.h):
//
//   using Stage = tile::Stage<tile::SharedTile<T, BM, BK>, tile::SharedTile<T, BN, BK>>;
//   using Pipe = tile::PipelineShape<Stage, STAGES, CONSUMERS>;
//   auto pipe = make_pipeline<Pipe>(blk);
//   for (const auto t : persistent_tiles(blk, p.schedule)) {
//     pipe.producer(k_tiles, [&](Stage& s, int64_t k) {          // the producer role: fill stage s with slice k
//       load_async(blk, s.a, p.a, {m0, k * BK});
//       load_async(blk, s.b, p.b, {n0, k * BK});
//     });
//     pipe.consumers([&] {                                        // the consumer roles
//       auto acc = mma_accumulator<BM, BN>(pipe);
//       for (const Stage& s : pipe.stages(k_tiles, acc)) mma(acc, s.a, transpose(s.b));  // wait, mma, release
//       store(blk, p.c, {m0, n0}, cast<TO>(acc));
//     });
//   }
//
// A staged kernel may declare `static TILE_HD bool producer_starts_early(const Params&)`. Where it returns
// true, its producer does not wait for the kernel before it in the stream to finish (on Hopper kernels
// overlap their predecessor's end: launch.h): it may read and load what that kernel does not write (a decode
// step's older cache rows, the block table), and calls pipe.wait_for_predecessor() in its load function before
// the first load of what that kernel writes. The consumers wait at their start, as every other kernel does.
//
// Which threads play which role, the barriers between them, the copy engine and the tensor-core
// instructions are the tile library's business: on Hopper TMA and wgmma, before Hopper (sm_80 on) cp.async and
// mma.sync (cuda/hopper/pipeline.h). On the host the producer's loads run lazily, one stage at a time, inside
// the consumers' loop.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tessera/tile/common.h"

namespace tessera::tile {

// An R x C tile in shared memory, filled by load_async and read by mma. Its element layout is the backend's
// (row-major on the host; on the GPU swizzled for the tensor cores, in panels of 128-byte rows when C is
// wider than that): kernel code never indexes it.
template <class T, int R, int C>
struct SharedTile {
  using value_type = T;
  static constexpr int rows = R, cols = C;
  static constexpr size_t bytes = size_t(R) * C * sizeof(T);
  T* data = nullptr;
  uint64_t* ready = nullptr;  // GPU: the barrier its stage's loads complete on
};

// Rows of one slice of a sliced tile (host/slices.h): the M of the warp-level tensor-core instruction.
inline constexpr int kSliceRows = 16;

// Marks a shared tile to be read transposed by mma: an [N, K] tile used as the K x N operand.
template <class S>
struct Transposed {
  S tile;
};

// The tiles one pipeline stage holds (one to three).
template <class A, class B = void, class C = void>
struct Stage {
  A a;
  B b;
  C c;
  static constexpr size_t bytes = A::bytes + B::bytes + C::bytes;
  template <class F> TILE_HD void for_each(F f) { f(a); f(b); f(c); }
};
template <class A, class B>
struct Stage<A, B, void> {
  A a;
  B b;
  static constexpr size_t bytes = A::bytes + B::bytes;
  template <class F> TILE_HD void for_each(F f) { f(a); f(b); }
};
template <class A>
struct Stage<A, void, void> {
  A a;
  static constexpr size_t bytes = A::bytes;
  template <class F> TILE_HD void for_each(F f) { f(a); }
};

// A tensor in global memory that the copy engine reads in boxes of BOX_ROWS x BOX_COLS: a matrix (RANK 2), or
// a stack of matrices (RANK 3, [planes, rows, cols], e.g. the heads of a batch) read one plane at a time. On
// the GPU the descriptor (a CUDA tensor map, made on the host) travels in the kernel's parameters; the host
// reads `view`. Elements outside the view (outside the plane, for RANK 3) read as zero.
template <class T, int BOX_ROWS, int BOX_COLS, int RANK = 2>
struct TmaTensor {
  static_assert(RANK == 2 || RANK == 3, "TMA tensors here are matrices or stacks of matrices");
  alignas(64) unsigned char descriptor[128] = {};
  View<const T, RANK> view;
};

// Whether the copy engine can read `view`: 16-byte aligned base and strides, unit column stride, not empty.
// (The host reads any view; it applies the same test so that both backends take the same kernels.)
template <class T, int RANK>
inline bool tma_compatible(const View<const T, RANK>& view) {
  bool ok = view.stride[RANK - 1] == 1 && reinterpret_cast<uintptr_t>(view.data) % 16 == 0;
  for (int d = 0; d < RANK; ++d) {
    ok = ok && view.extent[d] > 0;
    if (d + 1 < RANK) ok = ok && (view.stride[d] * int64_t(sizeof(T))) % 16 == 0;
  }
  return ok;
}

// Whether the copy engine can write `view` (Pipeline::store_async): as tma_compatible, and rows a whole number
// of 16-byte pieces wide. The copy engine writes a row's last piece whole: in a row 3 elements wide it also
// overwrote the 5 (bf16) elements after it with what the box held there (H200, test_tile_staged_gpu.cpp).
template <class T, int RANK>
inline bool tma_store_compatible(const View<const T, RANK>& view) {
  return tma_compatible(view) && (view.extent[RANK - 1] * int64_t(sizeof(T))) % 16 == 0;
}

// One unit of work of a tiled schedule: output tile (row, col), and which of the schedule's splits of the
// reduction dimension.
struct TileIndex {
  int64_t row = 0, col = 0, split = 0;
};

// Output tiles of a rows x cols grid of tiles, each cut into `splits` parts along the reduction dimension,
// visited in groups of `group` tile rows: consecutive tiles share B columns and A rows, so what one wave of
// blocks reads stays in L2. All tiles of split 0 come first, then split 1 ...
// With clusters of `cluster` blocks (the staged pipeline's PipelineShape::cluster), the blocks of a cluster
// take `cluster` vertically adjacent tiles of one tile column together, block r of the cluster the r-th (they
// share the column's B tile). Work item i is tile (unit i / cluster, row r = i % cluster), and the units are
// visited as tiles are without clusters. When the tile rows are not a multiple of the cluster, the last
// unit's blocks past the end get rows >= tile_rows: they take part in the cluster's loads, and their stores
// fall outside C.
struct TileSchedule {
  int64_t tile_rows = 0, tile_cols = 0;
  int64_t group = 8;
  int64_t splits = 1;
  int64_t cluster = 1;
  TILE_HD int64_t tiles() const { return tile_rows * tile_cols; }
  // Rows of units (of `cluster` tile rows each), and the work items: units x cluster x splits.
  TILE_HD int64_t unit_rows() const { return (tile_rows + cluster - 1) / cluster; }
  TILE_HD int64_t count() const { return unit_rows() * cluster * tile_cols * splits; }
  TILE_HD TileIndex at(int64_t index) const {
    // A 64-bit division is a software routine on the GPU (a call of tens of instructions), which every thread
    // ran four times at every tile; schedules of fewer than 2^31 items (all but the largest) divide in 32 bits.
    // Matmul 1024^3 went from 0.906-0.910x cuBLAS to 0.925-0.930x, 16 x 4096 x 4096 from 1.004-1.018x to
    // 1.024-1.027x (H200, session 64); shapes of long tiles cannot tell.
    return narrow() ? at_in<uint32_t>(uint32_t(index)) : at_in<int64_t>(index);
  }
  // Whether every quantity of at's arithmetic fits in 31 bits: the items (their count is at most
  // (tile_rows + cluster) tile_cols splits) and group tile_cols, for a group no taller than the rows.
  TILE_HD bool narrow() const {
    constexpr int64_t limit = 0x7fffffff;
    if (tile_rows > limit || tile_cols > limit || splits > limit || cluster > limit) return false;
    const int64_t per_split = (tile_rows + cluster) * tile_cols;
    return per_split <= limit && per_split * splits <= limit;
  }

 private:
  template <class I>
  TILE_HD TileIndex at_in(I index) const {
    const I clusters = I(cluster);
    const I rank = clusters == 1 ? 0 : index % clusters;  // no division where there are no clusters
    if (clusters != 1) index /= clusters;
    const I rows = (I(tile_rows) + clusters - 1) / clusters, cols = I(tile_cols), units = rows * cols;
    const I split = index / units;
    index -= split * units;
    // A group taller than the rows is all of them (so that group x cols stays within the items' range).
    const I group_rows = group < int64_t(rows) ? I(group) : rows, per_group = group_rows * cols;
    const I group_index = index / per_group, first_row = group_index * group_rows;
    const I rows_here = rows - first_row < group_rows ? rows - first_row : group_rows;
    const I in_group = index - group_index * per_group;
    const I col = in_group / rows_here;
    return {int64_t((first_row + (in_group - col * rows_here)) * clusters + rank), int64_t(col), int64_t(split)};
  }
};

// The tiles one block of a persistent grid computes: block b takes work items b, b + blocks, b + 2 blocks ...
// (with clusters, `blocks` is a multiple of the cluster, so every block of a cluster takes as many items, of
// the same units: each backend's persistent_blocks<Kernel>(work items) sizes the grid so).
struct PersistentTiles {
  TileSchedule schedule;
  int64_t first = 0, step = 1;
  struct iterator {
    const TileSchedule* s;
    int64_t i, step;
    TILE_HD TileIndex operator*() const { return s->at(i); }
    TILE_HD iterator& operator++() { i += step; return *this; }
    TILE_HD bool operator!=(const iterator& o) const { return i < o.i; }
  };
  TILE_HD iterator begin() const { return {&schedule, first, step}; }
  TILE_HD iterator end() const { return {&schedule, schedule.count(), step}; }
};

template <class Block>
TILE_HD PersistentTiles persistent_tiles(const Block& blk, const TileSchedule& schedule) {
  return {schedule, blk.bid(0), blk.num_blocks(0)};
}

// The same in runs of `run` consecutive work items (a power of two; schedules without clusters): block b takes
// items b run .. b run + run - 1, then (b + blocks) run .., and the grid is sized for the runs
// (persistent_blocks(ceil(items / run))). Where a schedule's items alternate heavy and light, so that every
// run holds about as much work, each block gets an even share whatever the number of blocks.
struct PersistentTileRuns {
  TileSchedule schedule;
  int64_t first = 0, jump = 1;  // jump: from the last item of a run to the first of the block's next
  int64_t last_in_run = 0;      // run - 1: an item i ends a run where (i & last_in_run) == last_in_run
  struct iterator {
    const TileSchedule* s;
    int64_t i, jump, last_in_run;
    TILE_HD TileIndex operator*() const { return s->at(i); }
    // The item's number in the schedule's order, for a kernel whose items are a plain grid (one group, one
    // split, no clusters) and that splits it with fewer divisions than at() (fmha: one).
    TILE_HD int64_t index() const { return i; }
    TILE_HD iterator& operator++() {
      i += (i & last_in_run) == last_in_run ? jump : 1;
      return *this;
    }
    TILE_HD bool operator!=(const iterator& o) const { return i < o.i; }
  };
  TILE_HD iterator begin() const { return {&schedule, first, jump, last_in_run}; }
  TILE_HD iterator end() const { return {&schedule, schedule.count(), jump, last_in_run}; }
};

template <class Block>
TILE_HD PersistentTileRuns persistent_tile_runs(const Block& blk, const TileSchedule& schedule, int64_t run) {
  return {schedule, blk.bid(0) * run, (blk.num_blocks(0) - 1) * run + 1, run - 1};
}

// Problems of different heights stacked along the rows of one operand (a grouped GEMM: the tokens routed to
// each expert of a mixture), problem g being rows offsets[g] .. offsets[g + 1], every one tile_cols tiles
// wide. Its work items are the problems' output tiles, problem after problem, each problem's in a
// TileSchedule's order. The offsets may live in device memory that the host never reads: a block walks the
// problems once, in order, as its work items advance, so no prefix sum of tiles is made ahead. Offsets are
// clamped into [0, rows] and an end below its start reads as the start, so whatever they hold, no tile leaves
// the stacked rows.
struct StackedProblems {
  View1<const int32_t> offsets32;  // [problems + 1]: one of the two, as offsets_i64 says
  View1<const int64_t> offsets64;
  bool offsets_i64 = false;
  int64_t problems = 0, rows = 0;  // rows: of the stacked operand
  int64_t tile_m = 1, tile_cols = 0, group = 8;
  TILE_HD int64_t offset(int64_t g) const {
    const int64_t o = offsets_i64 ? offsets64(g) : int64_t(offsets32(g));
    return o < 0 ? 0 : o > rows ? rows : o;
  }
};

// One work item of StackedProblems: output tile `tile` (its split always 0) of problem `problem`, whose rows
// are first_row .. first_row + rows of the stacked operand (tile.row counts tile_m-row tiles from first_row).
struct StackedTileIndex {
  int64_t problem = 0, first_row = 0, rows = 0;
  TileIndex tile;
};

// The work items one block of a persistent grid computes: items b, b + blocks, ... as PersistentTiles.
struct PersistentStackedTiles {
  StackedProblems problems;
  int64_t first = 0, step = 1;
  struct iterator {
    const StackedProblems* s;
    int64_t item, step;
    int64_t problem = 0, problem_item = 0;  // the problem the item falls in, and its first item
    int64_t first_row = 0, rows = 0, tile_rows = 0;
    TILE_HD void enter(int64_t g) {
      problem = g;
      if (g >= s->problems) return;
      first_row = s->offset(g);
      const int64_t end = s->offset(g + 1);
      rows = end > first_row ? end - first_row : 0;
      tile_rows = (rows + s->tile_m - 1) / s->tile_m;
    }
    TILE_HD void settle() {
      while (problem < s->problems && item >= problem_item + tile_rows * s->tile_cols) {
        problem_item += tile_rows * s->tile_cols;
        enter(problem + 1);
      }
    }
    TILE_HD StackedTileIndex operator*() const {
      const TileSchedule local{tile_rows, s->tile_cols, s->group};
      return {problem, first_row, rows, local.at(item - problem_item)};
    }
    TILE_HD iterator& operator++() { item += step; settle(); return *this; }
    TILE_HD bool operator!=(const iterator&) const { return problem < s->problems; }  // end: past the last problem
  };
  TILE_HD iterator begin() const {
    iterator it{&problems, first, step};
    it.enter(0);
    it.settle();
    return it;
  }
  TILE_HD iterator end() const { return {&problems, 0, step}; }
};

template <class Block>
TILE_HD PersistentStackedTiles persistent_tiles(const Block& blk, const StackedProblems& problems) {
  return {problems, blk.bid(0), blk.num_blocks(0)};
}

// How the consumer roles of a staged kernel share the work. cooperative: all of them compute each output tile
// together, each its share of the rows. pingpong: they take turns, a whole tile each, so one's epilogue runs
// while the next computes. column_shares: all of them compute each tile together, each its share of the
// columns (every share has all the rows: for 64-row tiles wider than one consumer can hold, such as MLA's
// 512-column output); row reductions and products whose left operand is in shares exchange what they need
// through shared memory. Kernel code is the same for all three.
enum class Consumers { cooperative, pingpong, column_shares };

// A stage (or resident tiles) laid out from `base`: its tiles back to back, each completing on `ready` (the
// GPU's barrier for its copies; the host passes none).
template <class S>
TILE_HD S tiles_at(unsigned char* base, uint64_t* ready) {
  S tiles;
  tiles.for_each([&](auto& t) {
    using Tl = std::remove_reference_t<decltype(t)>;
    t.data = reinterpret_cast<typename Tl::value_type*>(base);
    t.ready = ready;
    base += Tl::bytes;
  });
  return tiles;
}

// A pipeline without resident tiles.
struct NoResident {
  static constexpr size_t bytes = 0;
  template <class F> TILE_HD void for_each(F) {}
};

// The shape of a staged kernel's pipeline: what a stage holds, how many stages, how many consumer roles, how
// they share the work, and optionally resident tiles (a Stage type): tiles the producer loads once per unit
// of work and the consumers read through all its stages (attention's query tile). A staged kernel declares it
// as `using Pipe = tile::PipelineShape<...>` and takes its thread count and shared memory from it.
//
// CLUSTER > 1 launches the blocks in clusters of that many (Hopper): the blocks of a cluster run their
// pipelines in lock step, a stage of each filled for all by load_async_multicast (each block fetches its
// share of a tile they all read, and the copy engine delivers it to every block), and a stage is free again
// only when the consumers of every block of the cluster are done with it. The kernel's persistent_tiles must
// then give the blocks of a cluster the same number of units of work (TileSchedule::cluster).
//
// OUT, when not void, is the element type of the output tiles the consumers hand to the copy engine
// (Pipeline::store_async): each consumer warpgroup gets kStoreBufferBytes of staging buffers.
inline constexpr size_t kStoreBufferBytes = 16384;
template <class StageT, int STAGES, int CONSUMERS, Consumers MODE = Consumers::cooperative, class ResidentT = NoResident,
          int CLUSTER = 1, class OUT = void>
struct PipelineShape {
  static_assert(CLUSTER == 1 || ResidentT::bytes == 0, "clusters: pipelines without resident tiles for now");
  static_assert(CLUSTER >= 1 && CLUSTER <= 8, "a portable cluster has at most 8 blocks");
  using Stage = StageT;
  using Resident = ResidentT;
  static constexpr int stages = STAGES, consumers = CONSUMERS, cluster = CLUSTER;
  static constexpr Consumers mode = MODE;
  static constexpr int consumers_per_tile = MODE == Consumers::pingpong ? 1 : CONSUMERS;
  static constexpr int threads = (CONSUMERS + 1) * 128;   // GPU: consumer warpgroups and one producer warpgroup
  static constexpr size_t stage_stride = (StageT::bytes + 1023) / 1024 * 1024;  // the swizzle's 1024-byte alignment
  static constexpr size_t resident_bytes = (ResidentT::bytes + 1023) / 1024 * 1024;
  using Out = OUT;
  static constexpr size_t store_bytes = std::is_void_v<OUT> ? 0 : CONSUMERS * kStoreBufferBytes;
  static constexpr int store_barriers = std::is_void_v<OUT> ? 0 : CONSUMERS * 8;  // a staging buffer's box loaded
  // The resident tiles, the stages, the store staging buffers, then a full and an empty barrier per stage, a
  // turn barrier per consumer (ping-pong), a full and an empty barrier for the resident tiles, and one barrier
  // per staging buffer.
  static constexpr size_t shared_bytes = 1024 /* alignment slack */ + resident_bytes + STAGES * stage_stride +
                                         store_bytes + (2 * STAGES + CONSUMERS + 2 + store_barriers) * sizeof(uint64_t);
  static_assert(shared_bytes <= 227 * 1024, "more shared memory than a Hopper block may have: fewer stages");
};

// A pipeline whose stages the producer warpgroup's 128 threads fill with cp.async (load_row_boxes_by_threads,
// tile/row_boxes.h) instead of asking the copy engine: each thread arrives on the stage's barrier once its own
// pieces have landed, and the consumers make the stage visible to the tensor cores after their wait. sm_80's
// pipeline is always filled this way. On Hopper it pays where the copy engine's requests are the limit: decode
// attention's 256-byte K and V rows from a paged cache read 1-4% faster so (H200, session 68). No clusters (no
// multicast) and no resident tiles.
template <class Shape>
struct CopiedByThreads : Shape {
  static_assert(Shape::cluster == 1 && Shape::Resident::bytes == 0, "CopiedByThreads: no clusters, no resident tiles");
  static constexpr bool copied_by_threads = true;
};
template <class Shape>
inline constexpr bool copied_by_threads_v = requires { Shape::copied_by_threads; };

// Blocks per cluster of a staged kernel (its PipelineShape's), 1 for every other kernel.
template <class Kernel>
constexpr int cluster_size() {
  if constexpr (requires { Kernel::Pipe::cluster; }) return Kernel::Pipe::cluster;
  else return 1;
}

}  // namespace tessera::tile

namespace tessera::tile {
// An [N, K] shared tile read as the K x N operand of mma.
template <class T, int R, int C>
TILE_HD Transposed<SharedTile<T, R, C>> transpose(const SharedTile<T, R, C>& t) { return {t}; }

// mma(acc, a, transpose(b), overwrite) for shared tiles: acc = a @ b^T, whatever acc held. On Hopper the
// first k step's product is written over the accumulator (wgmma's scale-d 0), so nothing zeroes it first.
// Zeroed in a loop, a score tile costs a register move per element unless ptxas folds the zeros into the
// product, which it does not always do (a build of the prefill kernel moved 64 registers a thread on every key
// tile, inside the consumers' turn at the tensor cores, where each instruction holds up both).
struct Overwrite {};
inline constexpr Overwrite overwrite{};
}  // namespace tessera::tile
