// Test kernels for the staged pipeline's copy-engine operations: stores of accumulator tiles through the copy
// engine (Pipeline::store_async), tiles a cluster loads together (load_async_multicast) and tiles gathered from
// boxes of scattered rows (load_row_boxes_async). Instantiated for
// the host (tile_staged_host.cpp, the specification) and CUDA (tile_staged_cuda.cu); test_tile_staged_gpu.cpp
// checks both against values known exactly.
#pragma once
#include "tessera/tile/row_boxes.h"
#include "tessera/tile/solo.h"
#include "tessera/tile/staged.h"
#include "tessera/tile/tile.h"

namespace tessera::tile_staged_tests {

// Every BM x BN tile of `src` (fp32) goes through the consumers' accumulator layout, is cast to T and stored
// through the copy engine at the same place of `dst`: dst = T(src), exactly, and nothing outside dst is
// written. With ADD the store adds the same tile of `add` (which may be dst itself): dst = T(src + add). A
// persistent block stores several tiles, so the staging buffers are reused across tiles.
template <class T, int BM, int BN, int CONSUMERS, tile::Consumers MODE, bool ADD>
struct StoreAsyncTiles {
  using Stage = tile::Stage<tile::SharedTile<bf16, 64, 64>>;  // never filled: nothing is loaded
  using Pipe = tile::PipelineShape<Stage, 1, CONSUMERS, MODE, tile::NoResident, 1, T>;
  static constexpr int threads = Pipe::threads;
  static constexpr size_t shared_bytes = Pipe::shared_bytes;
  struct Params {
    tile::View2<const float> src;
    tile::TmaTensor<T, 16, 128 / sizeof(T)> dst, add;
    tile::TileSchedule schedule;
  };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    auto pipe = make_pipeline<Pipe>(blk);
    for (const tile::TileIndex t : persistent_tiles(blk, p.schedule)) {
      const tile::Coord at{t.row * BM, t.col * BN};
      pipe.producer(0, [&](Stage&, int64_t) {});
      pipe.consumers([&] {
        const auto tile = load_like(blk, mma_accumulator<BM, BN>(pipe), p.src, at);
        if constexpr (ADD) pipe.store_async(blk, p.dst, at, tile, p.add);
        else pipe.store_async(blk, p.dst, at, cast<T>(tile));
      });
    }
  }
};

// Every 128 x D tile of each plane of `src` (fp32 [planes, rows, D]) goes through the consumers' accumulator
// layout, is cast to T and stored through the copy engine into the same place of that plane of dst, staged in
// the block's resident tile (first loaded from dst, as attention's query tile is): dst = T(src) exactly, the
// tile clipped to its plane. A block's resident tile holds the tile afterwards.
template <class T, int D>
struct StoreThroughTiles {
  using Stage = tile::Stage<tile::SharedTile<bf16, 64, 64>>;  // never filled: nothing is streamed
  using Resident = tile::Stage<tile::SharedTile<T, 128, D>>;
  using Pipe = tile::PipelineShape<Stage, 1, 2, tile::Consumers::cooperative, Resident>;
  static constexpr int threads = Pipe::threads;
  static constexpr size_t shared_bytes = Pipe::shared_bytes;
  struct Params {
    tile::View3<const float> src;
    tile::TmaTensor<T, 128, D, 3> tiles;                     // dst, read into the resident tile
    tile::TmaTensor<T, 16, int(128 / sizeof(T)), 3> boxes;  // dst, written
  };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t plane = blk.bid(1);
    const tile::Coord at{blk.bid(0) * 128, 0};
    auto pipe = make_pipeline<Pipe>(blk);
    pipe.load_resident([&](Resident& r) { load_async(blk, r.a, p.tiles, plane, at); });
    pipe.producer(0, [&](Stage&, int64_t) {});
    pipe.consumers([&] {
      const auto staging = pipe.resident().a;
      const auto tile = load_like(blk, mma_accumulator<128, D>(pipe), p.src[plane], at);
      pipe.store_async(blk, p.boxes, plane, at, cast<T>(tile), staging);
      pipe.release_resident();
    });
  }
};

// C = A @ B^T through the whole staged path: K in 64-wide stages, B's tiles loaded by the blocks of a cluster
// together (load_async_multicast), C stored through the copy engine (or from registers where COPY_ENGINE is
// false). The test picks A and B so that C is exact in fp32. The accumulator starts as NaN and the first
// stage's product is written over it (tile::overwrite); the other stages add theirs.
template <int BM, int BN, int STAGES, int CONSUMERS, tile::Consumers MODE, int CLUSTER, bool COPY_ENGINE>
struct MmaStore {
  using Stage = tile::Stage<tile::SharedTile<bf16, BM, 64>, tile::SharedTile<bf16, BN, 64>>;
  using Pipe = tile::PipelineShape<Stage, STAGES, CONSUMERS, MODE, tile::NoResident, CLUSTER,
                                   std::conditional_t<COPY_ENGINE, float, void>>;
  static constexpr int threads = Pipe::threads;
  static constexpr size_t shared_bytes = Pipe::shared_bytes;
  struct Params {
    tile::TmaTensor<bf16, BM, 64> a;              // [M, K]
    tile::TmaTensor<bf16, BN / CLUSTER, 64> b;    // [N, K], in each block's share of a tile
    tile::View2<float> c;                         // [M, N]
    tile::TmaTensor<float, 16, 32> c_boxes;       // C for the copy engine
    tile::TileSchedule schedule;
    int64_t k_tiles;
  };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    auto pipe = make_pipeline<Pipe>(blk);
    for (const tile::TileIndex t : persistent_tiles(blk, p.schedule)) {
      const int64_t m0 = t.row * BM, n0 = t.col * BN;
      pipe.producer(p.k_tiles, [&](Stage& s, int64_t k) {
        load_async(blk, s.a, p.a, {m0, k * 64});
        load_async_multicast(blk, s.b, p.b, {n0, k * 64});
      });
      pipe.consumers([&] {
        auto acc = full_like(mma_accumulator<BM, BN>(pipe), NAN);
        bool first = true;
        for (const Stage& s : pipe.stages(p.k_tiles, acc)) {
          if (first) mma(acc, s.a, transpose(s.b), tile::overwrite);
          else mma(acc, s.a, transpose(s.b));
          first = false;
        }
        if constexpr (COPY_ENGINE) pipe.store_async(blk, p.c_boxes, {m0, n0}, acc);
        else store(blk, p.c, {m0, n0}, acc);
      });
    }
  }
};

// C = A @ B^T with A's and B's k slices in alternate fills of the same stages, as attention streams its keys and
// values: fill 2 j loads A's slice j and leaves B's tile out (leave_unloaded), fill 2 j + 1 the other way round,
// and the consumers hold both stages at once. The tiles left out are never read (on the host they hold NaN).
template <int BM, int BN, int STAGES>
struct HalfLoadedStages {
  using Stage = tile::Stage<tile::SharedTile<bf16, BM, 64>, tile::SharedTile<bf16, BN, 64>>;
  using Pipe = tile::PipelineShape<Stage, STAGES, 2>;
  static constexpr int threads = Pipe::threads;
  static constexpr size_t shared_bytes = Pipe::shared_bytes;
  struct Params {
    tile::TmaTensor<bf16, BM, 64> a;  // [M, K]
    tile::TmaTensor<bf16, BN, 64> b;  // [N, K]
    tile::View2<float> c;             // [M, N]
    tile::TileSchedule schedule;
    int64_t k_tiles;
  };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    auto pipe = make_pipeline<Pipe>(blk);
    for (const tile::TileIndex t : persistent_tiles(blk, p.schedule)) {
      const int64_t m0 = t.row * BM, n0 = t.col * BN;
      pipe.producer(2 * p.k_tiles, [&](Stage& s, int64_t i) {
        if (i % 2 == 0) {
          load_async(blk, s.a, p.a, {m0, (i / 2) * 64});
          leave_unloaded(blk, s.b);
        } else {
          leave_unloaded(blk, s.a);
          load_async(blk, s.b, p.b, {n0, (i / 2) * 64});
        }
      });
      pipe.consumers([&] {
        auto acc = mma_accumulator<BM, BN>(pipe);
        for (int64_t k = 0; k < p.k_tiles; ++k) {
          const auto with_a = pipe.acquire();
          const auto with_b = pipe.acquire();
          mma(acc, with_a.a, transpose(with_b.b));
          mma_wait(acc);
          pipe.release(with_a);
          pipe.release(with_b);
        }
        store(blk, p.c, {m0, n0}, acc);
      });
    }
  }
};

// Sliced tiles (host/slices.h) in one block: q (the rows of a rank-3 view, at most 16) copied into the S = 4 C
// slices; dots = q @ K_s^T and o = bf16(dots) @ V_s per slice s, K and V [S NK, *] in one stage; then the
// combinations over slices of o and of its row statistics, and the row maximum repeated into every slice.
template <int D, int NK, int DV, int C>
struct SlicedProducts {
  static constexpr int S = 4 * C;
  using Stage = tile::Stage<tile::SharedTile<bf16, S * NK, D>, tile::SharedTile<bf16, S * NK, DV>>;
  using Pipe = tile::PipelineShape<Stage, 1, C>;
  static constexpr int threads = Pipe::threads;
  static constexpr size_t shared_bytes = Pipe::shared_bytes;
  struct Params {
    tile::View3<const bf16> q;
    tile::TmaTensor<bf16, S * NK, D> k;
    tile::TmaTensor<bf16, S * NK, DV> v;
    tile::View2<float> dots, o, o_sum, row_max, row_sum, max_repeated;  // [16 S, NK] [16 S, DV] [16, DV] [16, 1] [16, 1] [16 S, 1]
    tile::View2<float> o_scaled;  // [16 S, DV]: o, rows r with r % 32 < 8 times 2 + their row max of dots
  };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    auto pipe = make_pipeline<Pipe>(blk);
    pipe.producer(1, [&](Stage& s, int64_t) {
      load_async(blk, s.a, p.k, {0, 0});
      load_async(blk, s.b, p.v, {0, 0});
    });
    pipe.consumers([&] {
      const auto q = load_slices(blk, mma_accumulator<16 * S, D>(pipe), p.q, {0, 0});
      const auto s = pipe.acquire();
      auto dots = mma_accumulator<16 * S, NK>(pipe);
      mma_slices(dots, q, transpose(s.a));
      auto o = mma_accumulator<16 * S, DV>(pipe);
      mma_slices(o, cast<bf16>(dots), s.b);
      pipe.release(s);
      store(blk, p.dots, {0, 0}, dots);
      store(blk, p.o, {0, 0}, o);
      const auto m = pipe.slice_max(row_max(o));
      store(blk, p.row_max, {0, 0}, m);
      store(blk, p.row_sum, {0, 0}, pipe.slice_sum(row_sum(o)));
      store(blk, p.max_repeated, {0, 0}, repeat_slices<S>(m));
      // Rows marked in some warps and none in others (a warp holds 16 rows of a slice).
      auto o_scaled = o;
      const auto row = arange_like(row_max(o), 0);
      scale_rows_where(o_scaled, row - row / 32 * 32 < 8, row_max(dots) + 2.f);
      store(blk, p.o_scaled, {0, 0}, o_scaled);
      store(blk, p.o_sum, {0, 0}, pipe.slice_sum(o));  // last: it reuses the stage's shared memory
    });
  }
};

struct SlicedConfig { int d, nk, dv, consumers; const char* why; };
inline constexpr SlicedConfig kSlicedConfigs[] = {
    {128, 16, 128, 1, "head dim 128, 64-key tiles (16 keys a slice)"},
    {64, 32, 64, 1, "head dim 64, 128-key tiles (32 keys a slice)"},
    {128, 16, 128, 2, "head dim 128, 128-key tiles in 8 slices over two warpgroups"},
    {64, 16, 64, 2, "head dim 64, 128-key tiles in 8 slices over two warpgroups"},
};
inline constexpr int kNumSlicedConfigs = int(sizeof(kSlicedConfigs) / sizeof(kSlicedConfigs[0]));

// Consumers in column shares (Consumers::column_shares): two warpgroups, each with every row and half of the
// columns of each accumulator. dots = q @ K^T and o = bf16(dots) @ V (the left operand in shares, exchanged
// through shared memory), the row maxima of dots and row sums of o (combined across the shares), o minus
// its row maxima (a row statistic broadcast over the shares), and a running row sum of o, o (the shares kept
// apart until total()): (0 / 2 + rowsum(o)) / 2 + rowsum(o).
template <int D, int NK, int DV>
struct ColumnSharesProducts {
  using Stage = tile::Stage<tile::SharedTile<bf16, 64, D>, tile::SharedTile<bf16, NK, D>, tile::SharedTile<bf16, NK, DV>>;
  using Pipe = tile::PipelineShape<Stage, 1, 2, tile::Consumers::column_shares>;
  static constexpr int threads = Pipe::threads;
  static constexpr size_t shared_bytes = Pipe::shared_bytes;
  struct Params {
    tile::TmaTensor<bf16, 64, D> q;
    tile::TmaTensor<bf16, NK, D> k;
    tile::TmaTensor<bf16, NK, DV> v;
    tile::View2<float> dots, o, row_max, row_sum, o_less_max;  // [64, NK] [64, DV] [64, 1] [64, 1] [64, DV]
    tile::View2<float> o_scaled;  // [64, DV]: o, rows r with r % 32 < 8 times 2 + their row max of dots
    tile::View2<float> running;   // [64, 1]: 1.5 rowsum(o), as running row sums
  };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    auto pipe = make_pipeline<Pipe>(blk);
    pipe.producer(1, [&](Stage& s, int64_t) {
      load_async(blk, s.a, p.q, {0, 0});
      load_async(blk, s.b, p.k, {0, 0});
      load_async(blk, s.c, p.v, {0, 0});
    });
    pipe.consumers([&] {
      auto dots = mma_accumulator<64, NK>(pipe);
      auto o = mma_accumulator<64, DV>(pipe);
      for (const Stage& s : pipe.stages(1, o)) {
        mma(dots, s.a, transpose(s.b));
        mma_wait(dots);
        mma(o, cast<bf16>(dots), s.c);
        mma_wait(o);
      }
      store(blk, p.dots, {0, 0}, dots);
      store(blk, p.o, {0, 0}, o);
      store(blk, p.row_max, {0, 0}, row_max(dots));
      store(blk, p.row_sum, {0, 0}, row_sum(o));
      store(blk, p.o_less_max, {0, 0}, o - row_max(o));
      auto o_scaled = o;
      const auto row = arange_like(row_max(o), 0);
      scale_rows_where(o_scaled, row - row / 32 * 32 < 8, row_max(dots) + 2.f);
      store(blk, p.o_scaled, {0, 0}, o_scaled);
      auto sums = running_row_sums(o);
      const auto half = full_like(row_max(dots), 0.5f);
      add_row_sums(sums, half, o);
      add_row_sums(sums, half, o);
      store(blk, p.running, {0, 0}, total(sums));
    });
  }
};

// Work of one consumer handed to both (tile/solo.h), over TILES stages and two consumer warpgroups in column
// shares: for each stage t, the first alone computes dots_t = q @ K_t^T and hands out bf16(dots_t) and its row
// maxima; both then halve their columns of o in the rows whose max is positive and add bf16(dots_t) @ V_t. At
// the end the first hands out the sum of the row maxima, which it alone kept.
//   o = where(max_t > 0, o / 2, o) + bf16(dots_t) @ V_t  (t = 0 .. TILES - 1, o = 0 before);  maxima = sum_t max_t
template <int D, int NK, int DV, int TILES>
struct SoloHandOut {
  using Stage = tile::Stage<tile::SharedTile<bf16, 64, D>, tile::SharedTile<bf16, NK, D>, tile::SharedTile<bf16, NK, DV>>;
  using Pipe = tile::PipelineShape<Stage, 2, 2, tile::Consumers::column_shares>;
  static constexpr int threads = Pipe::threads;
  static constexpr size_t shared_bytes = Pipe::shared_bytes;
  struct Params {
    tile::TmaTensor<bf16, 64, D> q;
    tile::TmaTensor<bf16, NK, D> k;   // [TILES * NK, D]
    tile::TmaTensor<bf16, NK, DV> v;  // [TILES * NK, DV]
    tile::View2<float> o, maxima;     // [64, DV] [64, 1]
  };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    auto pipe = make_pipeline<Pipe>(blk);
    pipe.producer(TILES, [&](Stage& s, int64_t t) {
      load_async(blk, s.a, p.q, {0, 0});
      load_async(blk, s.b, p.k, {t * NK, 0});
      load_async(blk, s.c, p.v, {t * NK, 0});
    });
    pipe.consumers([&] {
      auto o = mma_accumulator<64, DV>(pipe);
      auto scoring = solo(pipe);
      auto maxima = full_like(row_max(mma_accumulator<64, NK>(scoring)), 0.f);
      for (const Stage& s : pipe.stages(TILES, o)) {
        const auto [probs, top] = scoring.run([&] {
          auto dots = mma_accumulator<64, NK>(scoring);
          mma(dots, s.a, transpose(s.b));
          mma_wait(dots);
          maxima = maxima + row_max(dots);
          return std::tuple{cast<bf16>(dots), row_max(dots)};
        });
        scale_rows_where(o, top > 0.f, full_like(top, 0.5f));
        mma(o, probs, s.c);
        mma_wait(o);
      }
      const auto [total] = scoring.run([&] { return std::tuple{maxima}; });
      store(blk, p.o, {0, 0}, o);
      store(blk, p.maxima, {0, 0}, total);
    });
  }
};

struct SoloConfig { int d, nk, dv, tiles; const char* why; };
inline constexpr SoloConfig kSoloConfigs[] = {
    {64, 64, 512, 3, "MLA's split: 64 keys scored by one warpgroup, 256 output columns each, three tiles"},
    {128, 64, 128, 5, "64 output columns each, five tiles (each hand-out buffer reused)"},
};
inline constexpr int kNumSoloConfigs = int(sizeof(kSoloConfigs) / sizeof(kSoloConfigs[0]));

struct ColumnSharesConfig { int d, nk, dv; const char* why; };
inline constexpr ColumnSharesConfig kColumnSharesConfigs[] = {
    {128, 64, 512, "MLA's shares: 32 keys and 256 output columns a warpgroup"},
    {64, 64, 128, "32 keys and 64 output columns a warpgroup"},
};
inline constexpr int kNumColumnSharesConfigs = int(sizeof(kColumnSharesConfigs) / sizeof(kColumnSharesConfigs[0]));

// Stages filled by load_row_boxes_async from boxes of 16 rows scattered over one plane of two stacks, as decode
// attention gathers K and V from a paged cache: fill f's boxes start at the rows box_rows[f]. The consumer
// writes each fill's tiles out exactly, as eye @ tile (one nonzero bf16 product in each sum), one tile after the
// other (a 64 x 256 accumulator takes half its registers). More fills than stages, so the stages are filled
// again. HOW: 0 load_row_boxes_async; 1 the same copies through load_rows_async, a box of one tile at a time;
// 2 load_row_boxes_by_threads, in a pipeline of CopiedByThreads shape.
template <int CA, int CB, int HOW>
struct RowBoxFills {
  static constexpr int rows = 64, box = 16, boxes = rows / box;
  using Stage = tile::Stage<tile::SharedTile<bf16, rows, CA>, tile::SharedTile<bf16, rows, CB>>;
  using Pipe = std::conditional_t<HOW == 2, tile::CopiedByThreads<tile::PipelineShape<Stage, 2, 1>>, tile::PipelineShape<Stage, 2, 1>>;
  static constexpr int threads = Pipe::threads;
  static constexpr size_t shared_bytes = Pipe::shared_bytes;
  struct Params {
    tile::TmaTensor<bf16, box, CA, 3> a;  // [planes, rows, CA]
    tile::TmaTensor<bf16, box, CB, 3> b;  // [planes, rows, CB]
    tile::View2<const int32_t> box_rows;  // [fills, boxes]
    tile::View2<const float> eye;         // [64, 64], the identity
    tile::View2<float> a_out, b_out;      // [fills 64, CA] [fills 64, CB]
    int64_t plane;
  };
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    auto pipe = make_pipeline<Pipe>(blk);
    const int64_t fills = p.box_rows.extent[0];
    pipe.producer(fills, [&](Stage& s, int64_t f) {
      int32_t at[boxes];
      for (int i = 0; i < boxes; ++i) at[i] = p.box_rows(f, i);
      if constexpr (HOW == 1) {
        for (int i = 0; i < boxes; ++i) {
          load_rows_async(blk, s.a, i * box, p.a, p.plane, {at[i], 0}, tile::read_once);
          load_rows_async(blk, s.b, i * box, p.b, p.plane, {at[i], 0});
        }
      } else if constexpr (HOW == 2) {
        load_row_boxes_by_threads(blk, s.a, p.a, s.b, p.b, p.plane, at);
      } else {
        load_row_boxes_async(blk, s.a, p.a, s.b, p.b, p.plane, at, tile::read_once);
      }
    });
    pipe.consumers([&] {
      const auto eye = cast<bf16>(load_like(blk, mma_accumulator<rows, rows>(pipe), p.eye, {0, 0}));
      for (int64_t f = 0; f < fills; ++f) {
        const auto s = pipe.acquire();
        {
          auto a = mma_accumulator<rows, CA>(pipe);
          mma(a, eye, s.a);
          mma_wait(a);
          store(blk, p.a_out, {f * rows, 0}, a);
        }
        auto b = mma_accumulator<rows, CB>(pipe);
        mma(b, eye, s.b);
        mma_wait(b);
        pipe.release(s);
        store(blk, p.b_out, {f * rows, 0}, b);
      }
    });
  }
};

// MLA's widths (512 and 64 columns) would need a 64 x 512 accumulator here; its kernel's tests cover them.
struct RowBoxConfig { int ca, cb, how; const char* why; };
inline constexpr RowBoxConfig kRowBoxConfigs[] = {
    {128, 128, 0, "decode attention's K and V, head dim 128 (two panels each)"},
    {64, 64, 0, "head dim 64 (one panel each)"},
    {256, 64, 0, "tiles of four panels and one"},
    {128, 64, 1, "load_rows_async box by box, 128 and 64 columns, the hint on the first tile only"},
    {128, 128, 2, "the producer's threads copy, head dim 128 (4 rows a pass of the 128 threads)"},
    {256, 64, 2, "the producer's threads copy, 256 columns (2 rows a pass) and 64 (16 rows a pass)"},
};
inline constexpr int kNumRowBoxConfigs = int(sizeof(kRowBoxConfigs) / sizeof(kRowBoxConfigs[0]));

// The configurations tested, each named for the test's messages.
// dtype: 0 bf16, 1 f16, 2 f32. add: 0 none, 1 a tensor of its own, 2 the destination itself (in place).
struct StoreConfig { int bm, bn, consumers; bool pingpong; int dtype, add; const char* why; };
inline constexpr StoreConfig kStoreConfigs[] = {
    {64, 64, 1, false, 0, 0, "64 x 64 bf16, one warpgroup, one box a warp"},
    {64, 128, 1, false, 1, 0, "64 x 128 f16, one warpgroup"},
    {128, 128, 2, true, 0, 0, "128 x 128 bf16, ping-pong: a warpgroup a tile, staging buffers reused within a tile"},
    {128, 128, 2, false, 0, 0, "128 x 128 bf16, two cooperative warpgroups"},
    {128, 256, 2, false, 0, 0, "128 x 256 bf16, two cooperative warpgroups, staging buffers reused within a tile"},
    {128, 128, 2, false, 2, 0, "128 x 128 f32, two cooperative warpgroups, four boxes a row of a warp"},
    {128, 256, 2, false, 0, 1, "128 x 256 bf16 adding another tensor, two cooperative warpgroups"},
    {128, 128, 2, true, 2, 2, "128 x 128 f32 adding in place, ping-pong"},
    {64, 64, 1, false, 1, 2, "64 x 64 f16 adding in place, one warpgroup"},
};
inline constexpr int kNumStoreConfigs = int(sizeof(kStoreConfigs) / sizeof(kStoreConfigs[0]));

struct StoreThroughConfig { int d, dtype; const char* why; };
inline constexpr StoreThroughConfig kStoreThroughConfigs[] = {
    {64, 0, "bf16, head dim 64"},
    {128, 0, "bf16, head dim 128"},
    {256, 1, "f16, head dim 256 (four panels)"},
};
inline constexpr int kNumStoreThroughConfigs = int(sizeof(kStoreThroughConfigs) / sizeof(kStoreThroughConfigs[0]));

struct MmaConfig { int bm, bn, stages, consumers; bool pingpong; int cluster; bool copy_engine; const char* why; };
inline constexpr MmaConfig kMmaConfigs[] = {
    {64, 64, 3, 1, false, 2, true, "64 x 64, clusters of 2, copy-engine stores"},
    {128, 128, 2, 2, true, 2, true, "128 x 128 ping-pong, clusters of 2, copy-engine stores"},
    {128, 128, 2, 2, false, 1, true, "128 x 128, two cooperative warpgroups, copy-engine stores"},
    {128, 256, 2, 2, false, 1, true, "128 x 256, two cooperative warpgroups, copy-engine stores"},
    {128, 256, 2, 2, false, 2, false, "128 x 256, two cooperative warpgroups, clusters of 2, register stores"},
    // The shapes the sm_80 pipeline runs too (cooperative, no clusters, register stores): before Hopper these
    // are the only ones the GPU runs.
    {128, 128, 3, 2, false, 1, false, "128 x 128, two cooperative warpgroups, register stores (sm_80 too)"},
    {64, 128, 4, 1, false, 1, false, "64 x 128, one warpgroup, register stores (sm_80 too)"},
};
inline constexpr int kNumMmaConfigs = int(sizeof(kMmaConfigs) / sizeof(kMmaConfigs[0]));

}  // namespace tessera::tile_staged_tests
