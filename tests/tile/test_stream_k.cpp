// The stream-K schedule (tessera/tile/stream_k.h): every slice of every tile is visited exactly once, each
// block's share is within one slice of every other's, segments stay inside one tile and come last one first, and the parts that share
// a tile are numbered 0 .. parts - 1 in block order with the same count at each, never more than max_parts().
// Checked against a direct count of which blocks' ranges meet each tile.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "tessera/tile/host.h"
#include "tessera/tile/stream_k.h"

namespace tessera::testing {
namespace {

using tile::KSegment;
using tile::StreamKSchedule;

std::vector<KSegment> segments_of_block(const StreamKSchedule& s, int64_t block) {
  tile::host::Block blk;
  blk.block[0] = block;
  blk.blocks[0] = s.blocks;
  std::vector<KSegment> out;
  for (const KSegment w : tile::stream_k_segments(blk, s)) out.push_back(w);
  return out;
}

TEST(StreamKSchedule, EverySliceOnceInEvenSharesWithConsistentParts) {
  for (const int64_t tiles : {1, 2, 3, 7, 64, 224, 1000})
    for (const int64_t k_tiles : {1, 2, 5, 32, 33, 112})
      for (const int64_t max_blocks : {1, 2, 3, 8, 131, 132}) {
        const StreamKSchedule s = StreamKSchedule::over(tiles, k_tiles, max_blocks);
        SCOPED_TRACE(::testing::Message() << tiles << " tiles x " << k_tiles << " slices over " << s.blocks << " blocks");
        ASSERT_GE(s.blocks, 1);
        ASSERT_LE(s.blocks, max_blocks);
        ASSERT_LE(s.blocks, tiles * k_tiles);
        std::vector<int> visits(static_cast<size_t>(tiles * k_tiles), 0);
        // Per tile: the blocks that hold a segment of it, and the (part, parts) each was given.
        std::vector<std::vector<int64_t>> sharers(static_cast<size_t>(tiles));
        std::vector<std::vector<std::pair<int64_t, int64_t>>> numbering(static_cast<size_t>(tiles));
        int64_t least = tiles * k_tiles, most = 0;
        for (int64_t b = 0; b < s.blocks; ++b) {
          int64_t share = 0;
          const std::vector<KSegment> visited = segments_of_block(s, b);
          // The last segment first, then the others in slice order, back to back up to where the first began.
          std::vector<KSegment> in_order(visited.begin() + (visited.empty() ? 0 : 1), visited.end());
          if (!visited.empty()) in_order.push_back(visited.front());
          int64_t expected_next = -1;
          for (const KSegment& w : in_order) {
            ASSERT_GE(w.tile, 0);
            ASSERT_LT(w.tile, tiles);
            ASSERT_GE(w.k_first, 0);
            ASSERT_GE(w.k_count, 1);
            ASSERT_LE(w.k_first + w.k_count, k_tiles);
            const int64_t x = w.tile * k_tiles + w.k_first;
            if (expected_next >= 0) EXPECT_EQ(x, expected_next) << "the segments, last one moved to the end, follow each other";
            expected_next = x + w.k_count;
            for (int64_t k = 0; k < w.k_count; ++k) ++visits[size_t(x + k)];
            share += w.k_count;
            sharers[size_t(w.tile)].push_back(b);
            numbering[size_t(w.tile)].push_back({w.part, w.parts});
          }
          least = std::min(least, share);
          most = std::max(most, share);
        }
        EXPECT_TRUE(std::all_of(visits.begin(), visits.end(), [](int v) { return v == 1; }));
        EXPECT_LE(most - least, 1) << "every block the same run of slices, to within one";
        for (int64_t t = 0; t < tiles; ++t) {
          const auto& who = sharers[size_t(t)];
          const auto& num = numbering[size_t(t)];
          ASSERT_FALSE(who.empty());
          const int64_t parts = int64_t(who.size());
          EXPECT_LE(parts, s.max_parts());
          for (int64_t i = 0; i < parts; ++i) {
            EXPECT_EQ(num[size_t(i)].first, i) << "tile " << t;
            EXPECT_EQ(num[size_t(i)].second, parts) << "tile " << t;
            if (i > 0) EXPECT_EQ(who[size_t(i)], who[size_t(i - 1)] + 1) << "tile " << t << ": consecutive blocks";
          }
        }
      }
}

TEST(StreamKSchedule, RangesLongerThanATileShareEachTileAtMostTwice) {
  // 224 weight tiles of 32 slices on 132 blocks (14336 weight rows of 64, K 4096 in 128-wide slices): every
  // block streams 54-55 slices, so no tile has more than two parts and no block more than three segments.
  const StreamKSchedule s = StreamKSchedule::over(224, 32, 132);
  EXPECT_EQ(s.blocks, 132);
  EXPECT_EQ(s.max_parts(), 2);
  for (int64_t b = 0; b < s.blocks; ++b) EXPECT_LE(segments_of_block(s, b).size(), 3u) << "block " << b;
}

TEST(StreamKSchedule, ABlockPastTheScheduleHasNoWork) {
  const StreamKSchedule s = StreamKSchedule::over(3, 4, 5);
  tile::host::Block blk;
  blk.block[0] = 7;
  blk.blocks[0] = 8;
  int64_t n = 0;
  for (const KSegment w : tile::stream_k_segments(blk, s)) n += w.k_count;
  EXPECT_EQ(n, 0);
}

}  // namespace
}  // namespace tessera::testing
