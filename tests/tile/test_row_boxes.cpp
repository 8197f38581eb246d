// load_row_boxes_async (tessera/tile/row_boxes.h) in host mode: two tiles of different widths filled from boxes
// of rows scattered over a plane of their sources, against the source read directly (zeros past the plane's
// rows and for a plane outside the stack). The GPU form is checked against the same contract by
// TileStagedGpu/RowBoxes (tests/gpu/test_tile_staged_gpu.cpp) and through the decode kernels that use it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "tessera/tile/row_boxes.h"

namespace tessera::testing {
namespace {

template <int C>
tile::TmaTensor<float, 16, C, 3> planes_of(std::vector<float>& data, int64_t planes, int64_t rows) {
  tile::TmaTensor<float, 16, C, 3> t;
  t.view.data = data.data();
  t.view.extent[0] = planes; t.view.extent[1] = rows; t.view.extent[2] = C;
  t.view.stride[0] = rows * C; t.view.stride[1] = C; t.view.stride[2] = 1;
  return t;
}

TEST(RowBoxes, FillBothTilesBoxByBoxFromTheirRows) {
  constexpr int kBoxes = 4, kRows = 16 * kBoxes, kWide = 128, kNarrow = 64;
  constexpr int64_t planes = 3, rows = 101;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> value(-2.f, 2.f);
  std::vector<float> wide(planes * rows * kWide), narrow(planes * rows * kNarrow);
  for (float& x : wide) x = value(rng);
  for (float& x : narrow) x = value(rng);
  const auto wide_src = planes_of<kWide>(wide, planes, rows);
  const auto narrow_src = planes_of<kNarrow>(narrow, planes, rows);

  for (const int64_t plane : {int64_t(0), int64_t(2), int64_t(3)}) {
    // Out of order, one box repeated, the last running past the plane's last row (rows 95 .. 110 of 101).
    const int32_t box_rows[kBoxes] = {37, 0, 95, 37};
    std::vector<float> wide_tile(kRows * kWide, NAN), narrow_tile(kRows * kNarrow, NAN);
    tile::SharedTile<float, kRows, kWide> a{wide_tile.data()};
    tile::SharedTile<float, kRows, kNarrow> b{narrow_tile.data()};
    tile::host::Block blk;
    load_row_boxes_async(blk, a, wide_src, b, narrow_src, plane, box_rows, tile::read_once);

    auto expect_filled = [&](const std::vector<float>& tile_data, const std::vector<float>& src, int cols) {
      for (int r = 0; r < kRows; ++r) {
        const int64_t row = box_rows[r / 16] + r % 16;
        for (int c = 0; c < cols; ++c) {
          const bool in = plane < planes && row < rows;
          const float want = in ? src[(plane * rows + row) * cols + c] : 0.f;
          ASSERT_EQ(tile_data[r * cols + c], want) << "plane " << plane << ", tile row " << r << ", column " << c;
        }
      }
    };
    expect_filled(wide_tile, wide, kWide);
    expect_filled(narrow_tile, narrow, kNarrow);
  }
}

}  // namespace
}  // namespace tessera::testing
