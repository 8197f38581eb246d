// Test kernel for gather_rows / scatter_rows: one block gathers R rows of C columns (from column col0) of a
// rank-3 source view by the indices `gather_idx`, stores the tile densely to `tile_out`, and scatters it into
// `dst` by the indices `scatter_idx`. Instantiated for the host (gather_rows_host.cpp) and CUDA
// (gather_rows_cuda.cu); test_gather_rows_gpu.cpp checks both give identical bits.
#pragma once
#include "tessera/tile/staged.h"
#include "tessera/tile/tile.h"

namespace tessera::gather_rows_tests {

template <class T, int R, int C, int TH>
struct GatherScatter {
  static constexpr int threads = TH;
  struct Params {
    tile::View3<const T> src;
    tile::View3<T> dst;
    tile::View2<const int32_t> gather_idx, scatter_idx;  // [R, 1]
    tile::View2<T> tile_out;                              // [R, C]
    int64_t col0;
  };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const auto tile = gather_rows<C>(blk, p.src, load<R, 1>(blk, p.gather_idx, {0, 0}), p.col0, -7.f);
    store(blk, p.tile_out, {0, 0}, tile);
    scatter_rows(blk, p.dst, load<R, 1>(blk, p.scatter_idx, {0, 0}), p.col0, tile);
  }
};

// load_like / store on a rank-3 view seen as rows: the tile at (row0, col0) of `src` (rows are (plane, row)
// pairs, so a tile may cross planes, start before the first row or end past the last) to `tile_out`, then the
// same tile stored into `dst` at (row0, col0).
template <class T, int R, int C, int TH>
struct RowsOfRank3 {
  static constexpr int threads = TH;
  struct Params {
    tile::View3<const T> src;
    tile::View3<T> dst;
    tile::View2<T> tile_out;  // [R, C]
    int64_t row0, col0;
  };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const auto tile = load_like(blk, zeros<float, R, C>(blk), p.src, {p.row0, p.col0}, -7.f);
    store(blk, p.tile_out, {0, 0}, tile);
    store(blk, p.dst, {p.row0, p.col0}, tile);
  }
};

// A staged kernel whose consumer warpgroup only works on accumulator-layout tiles: nothing is loaded, the
// layout is what is tested. f(pipe) runs on the consumers.
struct AccumulatorKernel {
  using Stage = tile::Stage<tile::SharedTile<bf16, 64, 64>>;
  using Pipe = tile::PipelineShape<Stage, 1, 1>;
  static constexpr int threads = Pipe::threads;
  static constexpr size_t shared_bytes = Pipe::shared_bytes;
  template <class Block, class F>
  TILE_DEVICE static void on_consumers(Block& blk, F&& f) {
    auto pipe = make_pipeline<Pipe>(blk);
    pipe.producer(0, [&](Stage&, int64_t) {});
    pipe.consumers([&] { f(pipe); });
  }
};

// RowsOfRank3 for a tile in the accumulator layout of the staged pipeline's mma (on the GPU, Hopper's wgmma
// layout: rows split once per thread row, column pairs as one access where the view allows).
template <class T, int N>
struct AccumulatorRowsOfRank3 : AccumulatorKernel {
  using Params = typename RowsOfRank3<T, 64, N, threads>::Params;
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    on_consumers(blk, [&](auto& pipe) {
      const auto tile = load_like(blk, mma_accumulator<64, N>(pipe), p.src, {p.row0, p.col0}, -7.f);
      store(blk, p.tile_out, {0, 0}, tile);
      store(blk, p.dst, {p.row0, p.col0}, tile);
    });
  }
};

// store_fragments / load_fragments: an fp32 accumulator tile read from `src` at (row0, col0) goes to scratch
// slot 1 (of 3) and back, then to `tile_out`; the neighbouring slots stay as they were.
template <int N>
struct AccumulatorFragments : AccumulatorKernel {
  struct Params {
    tile::View3<const float> src;
    tile::View1<float> scratch;  // 3 slots of 64 x N
    tile::View2<float> tile_out;
    int64_t row0, col0;
  };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    on_consumers(blk, [&](auto& pipe) {
      const auto tile = load_like(blk, mma_accumulator<64, N>(pipe), p.src, {p.row0, p.col0}, -7.f);
      store_fragments(blk, p.scratch, 1, tile);
      store(blk, p.tile_out, {0, 0}, load_fragments(blk, tile, p.scratch, 1));
    });
  }
};

struct AccumulatorLayout { int cols; bool bf16; const char* why; };
inline constexpr AccumulatorLayout kAccumulatorLayouts[] = {
    {128, true, "64x128 bf16 accumulator layout"},
    {128, false, "64x128 f32 accumulator layout"},
    {64, true, "64x64 bf16 accumulator layout"},
};
inline constexpr int kNumAccumulatorLayouts = int(sizeof(kAccumulatorLayouts) / sizeof(kAccumulatorLayouts[0]));

struct GatherLayout { int rows, cols, threads; bool bf16; const char* why; };
inline constexpr GatherLayout kGatherLayouts[] = {
    {16, 64, 128, false, "16x64, one chunk per thread"},
    {16, 64, 128, true, "16x64 bf16, 16-byte chunks"},
    {4, 8, 32, false, "4x8, replicated"},
    {64, 1, 128, false, "64x1 column"},
    {32, 16, 64, false, "32x16, several chunks per thread"},
};
inline constexpr int kNumGatherLayouts = int(sizeof(kGatherLayouts) / sizeof(kGatherLayouts[0]));

}  // namespace tessera::gather_rows_tests
