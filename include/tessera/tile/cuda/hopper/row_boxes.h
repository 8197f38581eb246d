// load_row_boxes_async (tile/row_boxes.h) on the copy engine. A box row of 128-byte-swizzled shared memory is at
// most 128 bytes wide, so load_rows_async copies a box as panels of 64 16-bit columns, one copy each; here the
// copies go panel by panel across every box of both tiles, so the copy engine's requests sweep the first 128
// bytes of all the rows, then the next, instead of alternating halves of each row box by box.
#pragma once
#include <cstdint>
#include <type_traits>

#include "tessera/tile/cuda/hopper/tma.h"

namespace tessera::tile::cuda {

namespace hopper {
// Panel p of the BR-row box at (row, 0) of plane `plane` into rows [first_row, first_row + BR) of dst.
template <class T, int R, int C, int BR>
__device__ __forceinline__ void load_box_panel(const SharedTile<T, R, C>& dst, int first_row, const TmaTensor<T, BR, C, 3>& src,
                                               int64_t plane, int32_t row, int p, bool evict_first, uint64_t policy) {
  constexpr int P = panel_cols<T>;
  T* to = dst.data + p * R * P + first_row * P;
  if (evict_first)
    tma_load_3d(to, &src.descriptor, int32_t(p * P), row, int32_t(plane), dst.ready, policy);
  else
    tma_load_3d(to, &src.descriptor, int32_t(p * P), row, int32_t(plane), dst.ready);
}
}  // namespace hopper

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
      if (p < panels_a) hopper::load_box_panel(dst_a, box * BR, src_a, plane, rows[box], p, evict_first, policy);
      if (p < panels_b) hopper::load_box_panel(dst_b, box * BR, src_b, plane, rows[box], p, evict_first, policy);
    }
  }
}

}  // namespace tessera::tile::cuda
