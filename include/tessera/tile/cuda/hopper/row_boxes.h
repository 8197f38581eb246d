// load_row_boxes_async (tile/row_boxes.h) on the copy engine. A box row of 128-byte-swizzled shared memory is at
// most 128 bytes wide, so load_rows_async copies a box as panels of 64 16-bit columns, one copy each; here the
// copies go panel by panel across every box of both tiles, so the copy engine's requests sweep the first 128
// bytes of all the rows, then the next, instead of alternating halves of each row box by box.
#pragma once
#include <cstdint>
#include <type_traits>

#include "tessera/tile/cuda/hopper/tma.h"

namespace tessera::tile::cuda {

template <int BOXES, int TH, class T, int R, int CA, int CB, int BR, class... Hints>
__device__ __forceinline__ void load_row_boxes_async(const Block<TH>&, const SharedTile<T, R, CA>& dst_a, const TmaTensor<T, BR, CA, 3>& src_a,
                                                     const SharedTile<T, R, CB>& dst_b, const TmaTensor<T, BR, CB, 3>& src_b,
                                                     int64_t plane, const int32_t (&rows)[BOXES], Hints...) {
  static_assert(BOXES * BR == R && BR % 8 == 0, "boxes of whole 8-row swizzle atoms that fill the tiles' rows");
  static_assert((std::is_same_v<Hints, ReadOnce> && ...), "load_row_boxes_async: the one hint is ReadOnce");
  constexpr int P = hopper::panel_cols<T>, panels_a = CA / P, panels_b = CB / P;
  constexpr int panels = panels_a > panels_b ? panels_a : panels_b;
  constexpr bool evict_first = sizeof...(Hints) > 0;
  const uint64_t policy = evict_first ? hopper::evict_first_policy() : 0;
#pragma unroll
  for (int p = 0; p < panels; ++p) {
#pragma unroll
    for (int box = 0; box < BOXES; ++box) {
      if (p < panels_a) hopper::load_box_panel(dst_a, box * BR, src_a, plane, {rows[box], 0}, p, evict_first, policy);
      if (p < panels_b) hopper::load_box_panel(dst_b, box * BR, src_b, plane, {rows[box], 0}, p, evict_first, policy);
    }
  }
}

}  // namespace tessera::tile::cuda
