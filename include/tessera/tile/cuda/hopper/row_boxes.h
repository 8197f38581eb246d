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

namespace hopper {
// COPIERS threads (thread t of them: threadIdx.x % COPIERS) copy the BOXES boxes of rows of dst in 16-byte pieces
// with cp.async, each piece to its 128-byte-swizzled place; pieces past the plane's rows or outside the stack
// arrive as zeros. Copier t takes pieces t, t + COPIERS, ... of each box (consecutive copiers along a row).
// Everything that depends on the copier is computed once: its first piece's row and column, its source address
// and its place in the swizzle atom. Its later pieces differ from the first by compile-time rows, panels and
// swizzle bits, so a copy costs a pointer step, an xor and a compare: computed afresh from the piece's index
// (~40 instructions a copy) the producer could not issue the copies fast enough (session 68, run 2).
template <int COPIERS, class T, int R, int C, int BR, int BOXES>
__device__ __forceinline__ void copy_box_rows(const SharedTile<T, R, C>& dst, const TmaTensor<T, BR, C, 3>& src, int64_t plane,
                                              const int32_t (&rows)[BOXES]) {
  constexpr int piece = 16 / int(sizeof(T)), per_row = C / piece, per_box = BR * per_row, atom = 8;
  static_assert(per_box % COPIERS == 0 && (COPIERS % per_row == 0 || per_row % COPIERS == 0),
                "whole passes of the copiers over a box, over whole rows or whole parts of a row");
  static_assert(BR % atom == 0 && per_row % atom == 0, "boxes of whole 8-row, 128-byte swizzle atoms");
  constexpr int passes = per_box / COPIERS;
  // A pass covers rows_per_pass rows (the copiers span whole rows) or a 1 / row_parts part of a row.
  constexpr int rows_per_pass = COPIERS >= per_row ? COPIERS / per_row : 0;
  constexpr int row_parts = COPIERS >= per_row ? 1 : per_row / COPIERS;
  static_assert(rows_per_pass == 0 || atom % rows_per_pass == 0 || rows_per_pass % atom == 0,
                "a copier's row and a pass's rows are disjoint bits of the row's place in the atom");
  const int copier = int(threadIdx.x) % COPIERS;
  const int lane_row = copier / per_row, lane_piece = copier % per_row;
  const uint32_t lane_dst = shared_address(dst.data) + uint32_t(((lane_piece / atom) * R + lane_row) * 128);
  const uint32_t lane_swizzle = uint32_t(((lane_piece % atom) ^ (lane_row % atom)) * 16);
  const int64_t row_stride = src.view.stride[1], plane_rows = src.view.extent[1];
  const bool in_stack = plane >= 0 && plane < src.view.extent[0];
  const T* const plane_data = src.view.data + (in_stack ? plane : 0) * src.view.stride[0];
  const T* const lane_src = plane_data + int64_t(lane_row) * row_stride + lane_piece * piece;
#pragma unroll
  for (int box = 0; box < BOXES; ++box) {
    const int64_t first = rows[box];
    const T* const box_src = lane_src + first * row_stride;
    // The box's rows from this copier's first one that lie in the plane (none outside the stack).
    const int64_t rows_left = (in_stack ? plane_rows - first : 0) - lane_row;
#pragma unroll
    for (int k = 0; k < passes; ++k) {
      const int r = rows_per_pass ? k * rows_per_pass : k / row_parts;  // rows past the copier's first
      const int p = rows_per_pass ? 0 : (k % row_parts) * COPIERS;      // pieces past it: whole atoms
      const uint32_t to = lane_dst + uint32_t(((p / atom) * R + box * BR + r) * 128) + (lane_swizzle ^ uint32_t((r % atom) * 16));
      const bool in = r < rows_left;
      copy_async_16(to, in ? box_src + r * row_stride + p * piece : src.view.data, in ? 16u : 0u);
    }
  }
}
}  // namespace hopper

// load_row_boxes_async's copies made by the producer warpgroup's 128 threads with cp.async, in a pipeline of
// CopiedByThreads shape (each thread then arrives on the stage's barrier as its pieces land).
template <int BOXES, int TH, class T, int R, int CA, int CB, int BR>
__device__ __forceinline__ void load_row_boxes_by_threads(const Block<TH>&, const SharedTile<T, R, CA>& dst_a,
                                                          const TmaTensor<T, BR, CA, 3>& src_a, const SharedTile<T, R, CB>& dst_b,
                                                          const TmaTensor<T, BR, CB, 3>& src_b, int64_t plane,
                                                          const int32_t (&rows)[BOXES]) {
  static_assert(BOXES * BR == R, "the boxes fill the tiles' rows");
  hopper::copy_box_rows<128>(dst_a, src_a, plane, rows);
  hopper::copy_box_rows<128>(dst_b, src_b, plane, rows);
}

}  // namespace tessera::tile::cuda
