// The persistent tile schedule (tessera/tile/staged.h): every tile of every split is computed exactly once,
// consecutive work items stay in groups of tile rows, and with clusters the blocks of a cluster take the
// same units of work in lock step (vertically adjacent tiles of one column), as their shared loads need.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "tessera/tile/host.h"
#include "tessera/tile/host/launch.h"

namespace tessera::testing {
namespace {

using tile::TileIndex;
using tile::TileSchedule;

std::vector<TileIndex> tiles_of_block(const TileSchedule& s, int64_t block, int64_t blocks) {
  tile::host::Block blk;
  blk.block[0] = block;
  blk.blocks[0] = blocks;
  std::vector<TileIndex> out;
  for (const TileIndex t : tile::persistent_tiles(blk, s)) out.push_back(t);
  return out;
}

TEST(TileSchedule, WithoutClustersVisitsGroupsOfRowsColumnByColumn) {
  const TileSchedule s{5, 3, 2, 1};  // groups of 2 rows: rows 0-1 over every column, then 2-3, then 4
  std::vector<std::pair<int64_t, int64_t>> order;
  for (int64_t i = 0; i < s.count(); ++i) order.push_back({s.at(i).row, s.at(i).col});
  const std::vector<std::pair<int64_t, int64_t>> expected = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2},
                                                             {2, 0}, {3, 0}, {2, 1}, {3, 1}, {2, 2}, {3, 2},
                                                             {4, 0}, {4, 1}, {4, 2}};
  EXPECT_EQ(order, expected);
}

TEST(TileSchedule, EveryTileOnceAndClustersInLockStep) {
  for (const int64_t cluster : {1, 2, 4})
    for (const auto& [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 5}, {7, 2}, {16, 9}, {5, 1}})
      for (const int64_t splits : {1, 3})
        for (const int64_t clusters : {1, 2, 7, 100}) {
          TileSchedule s{rows, cols, 2, splits, cluster};
          const int64_t blocks = clusters * cluster;
          SCOPED_TRACE(::testing::Message() << "cluster " << cluster << ", " << rows << " x " << cols << " tiles, "
                                          << splits << " splits, " << blocks << " blocks");
          EXPECT_EQ(s.count() % cluster, 0);
          std::map<std::tuple<int64_t, int64_t, int64_t>, int> seen;
          for (int64_t b = 0; b < blocks; ++b) {
            const auto mine = tiles_of_block(s, b, blocks);
            const auto first = tiles_of_block(s, b - b % cluster, blocks);  // rank 0 of b's cluster
            ASSERT_EQ(mine.size(), first.size()) << "block " << b;
            for (size_t i = 0; i < mine.size(); ++i) {
              const TileIndex t = mine[i];
              EXPECT_EQ(t.row % cluster, b % cluster) << "block " << b;
              EXPECT_EQ(t.row / cluster, first[i].row / cluster) << "block " << b;
              EXPECT_EQ(t.col, first[i].col);
              EXPECT_EQ(t.split, first[i].split);
              ASSERT_GE(t.col, 0);
              ASSERT_LT(t.col, cols);
              ASSERT_LT(t.split, splits);
              if (t.row < rows) ++seen[{t.row, t.col, t.split}];
              else EXPECT_LT(t.row, (rows + cluster - 1) / cluster * cluster);  // padding of the last unit only
            }
          }
          EXPECT_EQ(int64_t(seen.size()), rows * cols * splits);
          for (const auto& [tile, n] : seen) EXPECT_EQ(n, 1);
        }
}

// TileSchedule::at divides in 32 bits where the schedule fits and in 64 where it does not; both give the
// mapping written out here in 64 bits, at every item of small schedules (groups taller than the rows among
// them) and at items spread over schedules just under and over 2^31 items.
TileIndex mapping_in_64_bits(const TileSchedule& s, int64_t index) {
  const int64_t rank = index % s.cluster;
  index /= s.cluster;
  const int64_t rows = (s.tile_rows + s.cluster - 1) / s.cluster, units = rows * s.tile_cols;
  const int64_t split = index / units;
  index %= units;
  const int64_t per_group = s.group * s.tile_cols;
  const int64_t first_row = (index / per_group) * s.group;
  const int64_t rows_here = std::min(rows - first_row, s.group);
  const int64_t in_group = index % per_group;
  return {(first_row + in_group % rows_here) * s.cluster + rank, in_group / rows_here, split};
}

TEST(TileSchedule, NarrowAndWideArithmeticAgree) {
  auto check = [](const TileSchedule& s, int64_t index) {
    const TileIndex got = s.at(index), want = mapping_in_64_bits(s, index);
    EXPECT_EQ(std::make_tuple(got.row, got.col, got.split), std::make_tuple(want.row, want.col, want.split))
        << s.tile_rows << " x " << s.tile_cols << " tiles, group " << s.group << ", " << s.splits << " splits, cluster "
        << s.cluster << ", item " << index;
  };
  for (const int64_t cluster : {1, 2, 3})
    for (const int64_t group : {1, 2, 8, 1000})
      for (const auto& [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {7, 3}, {16, 9}, {13, 1}})
        for (const int64_t splits : {1, 4}) {
          const TileSchedule s{rows, cols, group, splits, cluster};
          ASSERT_TRUE(s.narrow());
          for (int64_t i = 0; i < s.count(); ++i) check(s, i);
        }
  const int64_t two31 = int64_t(1) << 31;
  const std::vector<TileSchedule> large = {
      {two31 - 3, 1, 8, 1, 2},           // 2^31 - 2 items: narrow
      {46339, 46339, 8, 1, 1},           // 46339^2 < 2^31 - 46339: narrow
      {two31, 3, 8, 1, 1},               // over: wide
      {1 << 16, 1 << 15, 8, 2, 2},       // 2^32 items: wide
      {1000, 1000, 16, 3000, 1}};        // 3e9 items in splits: wide
  for (const TileSchedule& s : large) {
    SCOPED_TRACE(::testing::Message() << "narrow " << s.narrow());
    EXPECT_EQ(s.narrow(), (s.tile_rows + s.cluster) * s.tile_cols * s.splits < two31);
    const int64_t n = s.count();
    for (int64_t k = 0; k < 4000; ++k) check(s, k * (n / 4000) + k % 7);
    for (int64_t i = n - 100; i < n; ++i) check(s, i);
  }
}

// Runs of consecutive items (fmha's causal query tiles in pairs): block b's items are runs b, b + blocks, ... of
// `run` consecutive items, every item exactly once, and a grid sized for the runs leaves no block idle.
TEST(TileSchedule, RunsOfConsecutiveItemsEachOnce) {
  for (const int64_t run : {1, 2, 4})
    for (const auto& [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 5}, {8, 7}, {16, 9}, {5, 1}})
      for (const int64_t blocks_asked : {1, 2, 7, 132}) {
        const TileSchedule s{rows, cols, rows, 1, 1};
        const int64_t runs = (s.count() + run - 1) / run, blocks = std::min(blocks_asked, runs);
        SCOPED_TRACE(::testing::Message() << "runs of " << run << ", " << rows << " x " << cols << " tiles, " << blocks << " blocks");
        std::map<std::pair<int64_t, int64_t>, int> seen;
        for (int64_t b = 0; b < blocks; ++b) {
          tile::host::Block blk;
          blk.block[0] = b;
          blk.blocks[0] = blocks;
          std::vector<int64_t> items;  // indices into the schedule's order
          for (const TileIndex t : tile::persistent_tile_runs(blk, s, run)) {
            ++seen[{t.row, t.col}];
            items.push_back(t.col * rows + t.row);  // a group holds all rows: item = col * rows + row
          }
          ASSERT_FALSE(items.empty()) << "block " << b;
          for (size_t i = 0; i < items.size(); ++i) {
            const int64_t k = int64_t(i) / run;  // this block's k-th run
            EXPECT_EQ(items[i], (b + k * blocks) * run + int64_t(i) % run) << "block " << b << ", item " << i;
          }
        }
        EXPECT_EQ(int64_t(seen.size()), rows * cols);
        for (const auto& [tile, n] : seen) EXPECT_EQ(n, 1);
      }
}

// Stacked problems (grouped GEMM): every tile of every problem exactly once, in problem order within a block,
// each tile's rows inside its problem's; empty problems take no work; offsets out of range are clamped.
std::vector<tile::StackedTileIndex> stacked_tiles_of_block(const tile::StackedProblems& s, int64_t block, int64_t blocks) {
  tile::host::Block blk;
  blk.block[0] = block;
  blk.blocks[0] = blocks;
  std::vector<tile::StackedTileIndex> out;
  for (const tile::StackedTileIndex t : tile::persistent_tiles(blk, s)) out.push_back(t);
  return out;
}

TEST(StackedProblems, EveryTileOfEveryProblemOnce) {
  const std::vector<std::vector<int64_t>> cases = {{0}, {5}, {0, 1, 70, 3, 129, 0}, {64, 64}, {0, 0, 0, 300}, {200, 0}};
  for (const auto& heights : cases)
    for (const bool wide_offsets : {false, true})
      for (const int64_t tile_cols : {1, 3})
        for (const int64_t blocks : {1, 2, 5, 1000}) {
          std::vector<int32_t> o32{0};
          std::vector<int64_t> o64{0};
          for (int64_t h : heights) { o32.push_back(o32.back() + int32_t(h)); o64.push_back(o64.back() + h); }
          tile::StackedProblems s;
          s.offsets_i64 = wide_offsets;
          s.offsets32 = {o32.data(), {int64_t(o32.size())}, {1}};
          s.offsets64 = {o64.data(), {int64_t(o64.size())}, {1}};
          s.problems = int64_t(heights.size());
          s.rows = o64.back();
          s.tile_m = 64;
          s.tile_cols = tile_cols;
          s.group = 2;
          SCOPED_TRACE(::testing::Message() << heights.size() << " problems, " << blocks << " blocks, " << tile_cols << " tile cols");
          std::map<std::tuple<int64_t, int64_t, int64_t>, int> seen;
          for (int64_t b = 0; b < blocks; ++b) {
            int64_t last_problem = -1;
            for (const auto& t : stacked_tiles_of_block(s, b, blocks)) {
              ASSERT_GE(t.problem, last_problem);
              last_problem = t.problem;
              ASSERT_LT(t.problem, s.problems);
              EXPECT_EQ(t.first_row, o64[size_t(t.problem)]);
              EXPECT_EQ(t.rows, heights[size_t(t.problem)]);
              EXPECT_EQ(t.tile.split, 0);
              ASSERT_GE(t.tile.col, 0);
              ASSERT_LT(t.tile.col, tile_cols);
              ASSERT_GE(t.tile.row, 0);
              ASSERT_LT(t.tile.row * s.tile_m, t.rows);
              ++seen[{t.problem, t.tile.row, t.tile.col}];
            }
          }
          int64_t expected = 0;
          for (int64_t h : heights) expected += (h + 63) / 64 * tile_cols;
          EXPECT_EQ(int64_t(seen.size()), expected);
          for (const auto& [tile, n] : seen) EXPECT_EQ(n, 1);
        }
}

TEST(StackedProblems, OffsetsOutOfRangeStayInsideTheRows) {
  // Unchecked offsets (on a GPU nobody reads them first): negative, decreasing, past the rows.
  std::vector<int32_t> offsets{-5, 10, 3, 500, 40};
  tile::StackedProblems s;
  s.offsets32 = {offsets.data(), {5}, {1}};
  s.problems = 4;
  s.rows = 40;
  s.tile_m = 16;
  s.tile_cols = 2;
  for (const auto& t : stacked_tiles_of_block(s, 0, 1)) {
    EXPECT_GE(t.first_row, 0);
    EXPECT_LE(t.first_row + t.rows, s.rows);
    EXPECT_LT(t.tile.row * s.tile_m, t.rows);
  }
  // Problem 0: rows 0..10; 1: 10..10 (3 < 10 reads as empty); 2: 3..40; 3: 40..40.
  const auto all = stacked_tiles_of_block(s, 0, 1);
  ASSERT_EQ(all.size(), size_t((1 + 0 + 3 + 0) * 2));
  EXPECT_EQ(all.front().rows, 10);
  EXPECT_EQ(all.back().problem, 2);
  EXPECT_EQ(all.back().first_row, 3);
  EXPECT_EQ(all.back().rows, 37);
}

// A clustered kernel's persistent grid on the host: whole clusters, no more than the work.
struct Clustered {
  struct Pipe {
    static constexpr int cluster = 2;
  };
};
struct Plain {};

TEST(TileSchedule, PersistentGridsAreWholeClusters) {
  for (const int64_t items : {2, 6, 1000}) {
    const int64_t blocks = tile::host::persistent_blocks<Clustered>(items);
    EXPECT_EQ(blocks % 2, 0);
    EXPECT_GE(blocks, 2);
    EXPECT_LE(blocks, items);
  }
  EXPECT_EQ(tile::host::persistent_blocks<Plain>(1), 1);
  EXPECT_LE(tile::host::persistent_blocks<Plain>(100000), tile::host::multiprocessor_count());
}

}  // namespace
}  // namespace tessera::testing
