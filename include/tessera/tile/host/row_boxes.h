// Host implementation of load_row_boxes_async (tile/row_boxes.h): the order of the copies does not matter here.
#pragma once
#include <cstdint>

#include "tessera/tile/host/pipeline.h"

namespace tessera::tile::host {

template <int BOXES, class T, int R, int CA, int CB, int BR, class... Hints>
void load_row_boxes_async(const Block& blk, const SharedTile<T, R, CA>& dst_a, const TmaTensor<T, BR, CA, 3>& src_a,
                          const SharedTile<T, R, CB>& dst_b, const TmaTensor<T, BR, CB, 3>& src_b, int64_t plane,
                          const int32_t (&rows)[BOXES], Hints... hints) {
  static_assert(BOXES * BR == R, "the boxes fill the tiles' rows");
  for (int box = 0; box < BOXES; ++box) {
    load_rows_async(blk, dst_a, box * BR, src_a, plane, {rows[box], 0}, hints...);
    load_rows_async(blk, dst_b, box * BR, src_b, plane, {rows[box], 0}, hints...);
  }
}

// The GPU's producer threads copy what load_row_boxes_async copies; here the same.
template <int BOXES, class T, int R, int CA, int CB, int BR>
void load_row_boxes_by_threads(const Block& blk, const SharedTile<T, R, CA>& dst_a, const TmaTensor<T, BR, CA, 3>& src_a,
                               const SharedTile<T, R, CB>& dst_b, const TmaTensor<T, BR, CB, 3>& src_b, int64_t plane,
                               const int32_t (&rows)[BOXES]) {
  load_row_boxes_async(blk, dst_a, src_a, dst_b, src_b, plane, rows);
}

}  // namespace tessera::tile::host
