// gather_rows / scatter_rows on the host (their specification), against the definition written out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tessera/tile/host.h"

namespace tessera::tile {
namespace {

namespace th = tessera::tile::host;

// A [2, 3, 4] view with padded strides (row stride 6, plane stride 20) whose element (i, j, c) is 100 i + 10 j + c.
struct Source {
  std::vector<float> storage = std::vector<float>(40, NAN);
  View3<const float> view;
  Source() {
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int c = 0; c < 4; ++c) storage[size_t(i * 20 + j * 6 + c)] = float(100 * i + 10 * j + c);
    view = {storage.data(), {2, 3, 4}, {20, 6, 1}};
  }
};

th::Tile<int, 4, 1> indices(std::initializer_list<int> v) {
  th::Tile<int, 4, 1> t;
  int r = 0;
  for (int x : v) t(r++, 0) = x;
  return t;
}

TEST(TileGatherRows, RowsAreNumberedOverTheFirstTwoDimsAndPadOutside) {
  const Source src;
  const th::Block blk;
  // Row 5 is (1, 2); -1 and 6 are outside the 6 rows; column window [1, 5) crosses the last column.
  const auto t = th::gather_rows<4>(blk, src.view, indices({5, -1, 0, 6}), 1, -3.f);
  const float want[4][4] = {{121, 122, 123, -3}, {-3, -3, -3, -3}, {1, 2, 3, -3}, {-3, -3, -3, -3}};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) EXPECT_EQ(t(r, c), want[r][c]) << r << ", " << c;
  // A negative column start pads the columns before the view.
  const auto u = th::gather_rows<2>(blk, src.view, indices({3, 3, 3, 3}), -1);
  EXPECT_EQ(u(0, 0), 0.f);
  EXPECT_EQ(u(0, 1), 100.f);
}

TEST(TileGatherRows, ScatterWritesOnlyInsideTheView) {
  std::vector<float> storage(40, -1.f);
  const View3<float> dst{storage.data(), {2, 3, 4}, {20, 6, 1}};
  th::Tile<float, 4, 2> t;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 2; ++c) t(r, c) = float(10 * r + c);
  th::scatter_rows(th::Block{}, dst, indices({4, -1, 2, 99}), 3, t);
  std::vector<float> want(40, -1.f);
  want[size_t(1 * 20 + 1 * 6 + 3)] = 0.f;   // tile row 0 -> row 4 = (1, 1), column 3; column 4 is outside
  want[size_t(0 * 20 + 2 * 6 + 3)] = 20.f;  // tile row 2 -> row 2 = (0, 2)
  EXPECT_EQ(storage, want);
}

}  // namespace
}  // namespace tessera::tile
