// The copy engine (TMA): tensor maps made on the host, tile loads that complete on a stage's barrier.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <array>
#include <atomic>
#include <cstring>
#include <string>
#include <type_traits>

#include "tessera/runtime/cuda_check.h"
#include "tessera/runtime/error.h"
#include "tessera/tile/cuda/hopper/sync.h"
#include "tessera/tile/cuda/per_device.h"
#include "tessera/tile/cuda/tile.h"
#include "tessera/tile/staged.h"

namespace tessera::tile::cuda {

namespace hopper {
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    TESSERA_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || !p) fail(Status::cuda_error, "the CUDA driver has no cuTensorMapEncodeTiled");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

template <class T> constexpr CUtensorMapDataType tma_dtype() {
  static_assert(sizeof(T) <= 2 || std::is_same_v<T, float>, "TMA tiles: 8- and 16-bit element types and float");
  if constexpr (sizeof(T) == 1) return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  if constexpr (sizeof(T) == 2) return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  else return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}
}  // namespace hopper

namespace hopper {
// Whether the current device has the copy engine (TMA, sm_90 and later): tensor maps are made only there.
inline bool device_has_copy_engine() {
  static std::array<std::atomic<int>, 64> known{};
  return ::tessera::tile::cuda::detail::per_device(known, [](int device) {
    int major = 0;
    TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    return major >= 9 ? 1 : 2;
  }) == 1;
}

// Columns of one 128-byte swizzle atom: the widest box the copy engine swizzles, and a panel of a wider shared tile.
template <class T> inline constexpr int panel_cols = int(128 / sizeof(T));

// Byte offset of the 16-byte row piece holding element (r, c) of an R-row shared tile of T, as the copy engine
// swizzles it (128-byte panels; the pieces of row r permuted by r % 8).
template <class T, int R>
__device__ __forceinline__ uint32_t swizzled_piece(int r, int c) {
  constexpr int P = panel_cols<T>, piece = 16 / int(sizeof(T));
  return uint32_t(((c / P) * R + r) * 128 + ((((c % P) / piece) ^ (r % 8)) * 16));
}

template <int BOX_ROWS, int BOX_COLS, class T, int RANK>
void encode_tensor_map(unsigned char (&descriptor)[128], const View<const T, RANK>& view) {
  static_assert(BOX_COLS % panel_cols<T> == 0, "TMA boxes here are whole 128-byte swizzle atoms wide");
  static_assert(BOX_ROWS <= 256, "a TMA box has at most 256 rows");
  if (!tma_compatible(view)) invalid_argument("make_tma_tensor: the view is not 16-byte aligned with unit column stride");
  // Before Hopper there is no copy engine: the tensor is its view alone (the sm_80 pipeline's producer threads
  // copy from it), checked as the copy engine would check it.
  if (!device_has_copy_engine()) return;
  cuuint64_t dims[RANK], strides[RANK - 1];
  cuuint32_t box[RANK], elem_strides[RANK];
  for (int d = 0; d < RANK; ++d) {
    dims[d] = cuuint64_t(view.extent[RANK - 1 - d]);  // innermost first
    elem_strides[d] = 1;
    box[d] = 1;
  }
  for (int d = 1; d < RANK; ++d) strides[d - 1] = cuuint64_t(view.stride[RANK - 1 - d] * int64_t(sizeof(T)));
  box[0] = panel_cols<T>;  // one panel per copy; load_async issues one per panel
  box[1] = BOX_ROWS;
  CUtensorMap map;
  const CUresult r = tensor_map_encoder()(
      &map, tma_dtype<T>(), RANK, const_cast<T*>(view.data), dims, strides, box, elem_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) fail(Status::cuda_error, "cuTensorMapEncodeTiled failed with code " + std::to_string(int(r)));
  static_assert(sizeof(map) == sizeof(descriptor));
  std::memcpy(descriptor, &map, sizeof(map));
}
}  // namespace hopper

// A tensor map for boxes of BOX_ROWS x BOX_COLS, swizzled 128 bytes wide as the tensor cores read shared
// memory: boxes wider than 128 bytes are copied as several panels.
template <int BOX_ROWS, int BOX_COLS, class T>
TmaTensor<T, BOX_ROWS, BOX_COLS> make_tma_tensor(const View2<const T>& view) {
  TmaTensor<T, BOX_ROWS, BOX_COLS> t;
  t.view = view;
  hopper::encode_tensor_map<BOX_ROWS, BOX_COLS>(t.descriptor, view);
  return t;
}

// The same for a stack of matrices [planes, rows, cols].
template <int BOX_ROWS, int BOX_COLS, class T>
TmaTensor<T, BOX_ROWS, BOX_COLS, 3> make_tma_tensor(const View3<const T>& view) {
  TmaTensor<T, BOX_ROWS, BOX_COLS, 3> t;
  t.view = view;
  hopper::encode_tensor_map<BOX_ROWS, BOX_COLS>(t.descriptor, view);
  return t;
}

namespace hopper {
__device__ __forceinline__ void tma_load_2d(void* dst, const void* map, int32_t col, int32_t row, uint64_t* bar) {
#if TESSERA_SM90A
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          shared_address(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(shared_address(bar))
      : "memory");
#else
  (void)dst; (void)map; (void)col; (void)row; (void)bar; __trap();
#endif
}
// The same box into shared memory at the same offset in every block of `blocks` (a mask of cluster ranks),
// completing on the barrier at the same offset in each.
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const void* map, int32_t col, int32_t row, uint64_t* bar,
                                                      uint16_t blocks) {
#if TESSERA_SM90A
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(shared_address(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(shared_address(bar)), "h"(blocks)
      : "memory");
#else
  (void)dst; (void)map; (void)col; (void)row; (void)bar; (void)blocks; __trap();
#endif
}
// The L2 policy of the copy engine's ReadOnce loads: their lines are the first to leave L2.
__device__ __forceinline__ uint64_t evict_first_policy() {
  uint64_t policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

// The same with an L2 policy for the lines read (evict_first_policy: the ReadOnce hint).
__device__ __forceinline__ void tma_load_2d(void* dst, const void* map, int32_t col, int32_t row, uint64_t* bar, uint64_t policy) {
#if TESSERA_SM90A
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(shared_address(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(shared_address(bar)), "l"(policy)
      : "memory");
#else
  (void)dst; (void)map; (void)col; (void)row; (void)bar; (void)policy; __trap();
#endif
}
__device__ __forceinline__ void tma_load_3d(void* dst, const void* map, int32_t col, int32_t row, int32_t plane, uint64_t* bar) {
#if TESSERA_SM90A
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(
          shared_address(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(plane), "r"(shared_address(bar))
      : "memory");
#else
  (void)dst; (void)map; (void)col; (void)row; (void)plane; (void)bar; __trap();
#endif
}
__device__ __forceinline__ void tma_load_3d(void* dst, const void* map, int32_t col, int32_t row, int32_t plane, uint64_t* bar,
                                            uint64_t policy) {
#if TESSERA_SM90A
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%2, %3, %4}], [%5], %6;" ::"r"(shared_address(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(plane), "r"(shared_address(bar)), "l"(policy)
      : "memory");
#else
  (void)dst; (void)map; (void)col; (void)row; (void)plane; (void)bar; (void)policy; __trap();
#endif
}
// Writes the box at (col, row) of the tensor from shared memory at `src` (swizzled as the map says); elements
// outside the tensor are not written. Completes in the issuing thread's current bulk group (bulk_commit).
__device__ __forceinline__ void tma_store_2d(const void* map, const void* src, int32_t col, int32_t row) {
#if TESSERA_SM90A
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(col), "r"(row), "r"(shared_address(src))
               : "memory");
#else
  (void)map; (void)src; (void)col; (void)row; __trap();
#endif
}
// The same into plane `plane` of a stack of matrices (a rank-3 map); what falls outside the plane is not written.
__device__ __forceinline__ void tma_store_3d(const void* map, const void* src, int32_t col, int32_t row, int32_t plane) {
#if TESSERA_SM90A
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(col), "r"(row), "r"(plane), "r"(shared_address(src))
               : "memory");
#else
  (void)map; (void)src; (void)col; (void)row; (void)plane; __trap();
#endif
}
__device__ __forceinline__ void bulk_commit() {
#if TESSERA_SM90A
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}
// Waits until at most PENDING of this thread's bulk groups still read their shared memory.
template <int PENDING>
__device__ __forceinline__ void bulk_wait_read() {
#if TESSERA_SM90A
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(PENDING) : "memory");
#endif
}
// Waits until this thread's bulk groups are complete (their writes done).
__device__ __forceinline__ void bulk_wait_all() {
#if TESSERA_SM90A
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}
__device__ __forceinline__ void tma_prefetch_2d(const void* map, int32_t col, int32_t row) {
#if TESSERA_SM90A
  asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(reinterpret_cast<uint64_t>(map)),
               "r"(col), "r"(row)
               : "memory");
#else
  (void)map; (void)col; (void)row;
#endif
}
}  // namespace hopper

// Asks the copy engine to bring the box at (at.row, at.col) into L2, nothing else: a later load_async of it
// finds it there. A block-level operation (every thread calls it, the first issues it) that waits for nothing:
// for data no earlier kernel writes (weights), before the kernel waits for its predecessor
// (`before_dependencies`, launch.h).
template <int TH, class T, int R, int C>
__device__ __forceinline__ void prefetch(const Block<TH>&, const TmaTensor<T, R, C>& src, Coord at) {
  constexpr int P = hopper::panel_cols<T>;
  if (threadIdx.x != 0) return;
#pragma unroll
  for (int p = 0; p < C / P; ++p) hopper::tma_prefetch_2d(&src.descriptor, int32_t(at.col + p * P), int32_t(at.row));
}

namespace hopper {
// The sm_80 form of a tile load (TESSERA_SM80_PIPELINE): the producer warpgroup's 128 threads copy the box in
// 16-byte pieces (cp.async), thread t taking pieces t, t + 128, ... (consecutive threads along a row: whole
// 128-byte lines), each into the place the copy engine's 128-byte swizzle gives it, so the consumers read the
// same layout on both paths. Pieces past the view's rows or columns arrive as zeros; a piece that straddles
// the last column is read in part (the view's rows are 16-byte aligned, so every piece starts aligned). The
// box's columns start at a multiple of 16 bytes (at.col: a stage's k offset). Each thread's pieces complete
// on the stage barrier when it arrives there with barrier_arrive_on_copies (the pipeline's producer does).
template <class T, int R, int C>
__device__ __forceinline__ void copy_tile_pieces(const SharedTile<T, R, C>& dst, const View2<const T>& src, Coord at) {
  constexpr int piece = 16 / int(sizeof(T)), per_row = C / piece, pieces = R * per_row;
  static_assert(C % piece == 0, "shared tiles are whole 16-byte pieces wide");
  const int t = thread_in_warpgroup();
  const uint32_t base = shared_address(dst.data);
#pragma unroll
  for (int j = 0; j < (pieces + 127) / 128; ++j) {
    const int i = t + 128 * j;
    if (pieces % 128 != 0 && i >= pieces) break;
    const int r = i / per_row, c = (i % per_row) * piece;
    const int64_t gr = at.row + r, gc = at.col + c;
    uint32_t bytes = 0;
    const T* from = src.data;
    if (gr >= 0 && gr < src.extent[0] && gc >= 0 && gc < src.extent[1]) {
      const int64_t left = (src.extent[1] - gc) * int64_t(sizeof(T));
      bytes = left < 16 ? uint32_t(left) : 16u;
      from = src.data + gr * src.stride[0] + gc;
    }
    copy_async_16(base + swizzled_piece<T, R>(r, c), from, bytes);
  }
}
}  // namespace hopper

// Starts the copy of the box at (at.row, at.col) into `dst`; it completes on dst's stage barrier. Called by
// the producer role: on Hopper one thread (the copy engine), on sm_80 every producer thread (its pieces).
// Elements outside the tensor arrive as zeros. ReadOnce (common.h): the box's lines are the first to leave L2
// (the sm_80 pipeline's copies ignore it).
template <int TH, class T, int R, int C, class... Hints>
__device__ __forceinline__ void load_async(const Block<TH>&, const SharedTile<T, R, C>& dst, const TmaTensor<T, R, C>& src,
                                           Coord at, Hints...) {
  static_assert((std::is_same_v<Hints, ReadOnce> && ...), "load_async: the one hint is ReadOnce");
#if TESSERA_SM80_PIPELINE
  hopper::copy_tile_pieces(dst, src.view, at);
#else
  constexpr int P = hopper::panel_cols<T>;
  [[maybe_unused]] const uint64_t policy = sizeof...(Hints) > 0 ? hopper::evict_first_policy() : 0;
#pragma unroll
  for (int p = 0; p < C / P; ++p) {
    T* to = dst.data + p * R * P;
    if constexpr (sizeof...(Hints) > 0)
      hopper::tma_load_2d(to, &src.descriptor, int32_t(at.col + p * P), int32_t(at.row), dst.ready, policy);
    else
      hopper::tma_load_2d(to, &src.descriptor, int32_t(at.col + p * P), int32_t(at.row), dst.ready);
  }
#endif
}

// A tile that every block of the cluster loads, at the same (at.row, at.col): each of the R / BR blocks
// fetches BR of its rows (block r rows [r BR, (r + 1) BR)), and the copy engine writes them into every
// block's tile, completing on every block's stage barrier; each block's barrier expects the whole tile.
// The memory system serves each byte once per cluster instead of once per block. The pipeline must have
// clusters of R / BR blocks (PipelineShape's CLUSTER); with BR = R it is load_async.
template <int TH, class T, int R, int C, int BR>
__device__ __forceinline__ void load_async_multicast(const Block<TH>& blk, const SharedTile<T, R, C>& dst,
                                                     const TmaTensor<T, BR, C>& src, Coord at) {
  static_assert(R % BR == 0 && BR % 8 == 0, "shares of whole 8-row swizzle atoms that tile the rows");
  constexpr int P = hopper::panel_cols<T>, blocks = R / BR;
  if constexpr (blocks == 1) {
    load_async(blk, dst, src, at);
  } else {
    const int first = hopper::cluster_rank() * BR;
#pragma unroll
    for (int p = 0; p < C / P; ++p)
      hopper::tma_load_2d_multicast(dst.data + p * R * P + first * P, &src.descriptor, int32_t(at.col + p * P),
                                    int32_t(at.row + first), dst.ready, uint16_t((1u << blocks) - 1));
  }
}

// The same from plane `plane` of a stack of matrices.
template <int TH, class T, int R, int C>
__device__ __forceinline__ void load_async(const Block<TH>&, const SharedTile<T, R, C>& dst,
                                           const TmaTensor<T, R, C, 3>& src, int64_t plane, Coord at) {
  constexpr int P = hopper::panel_cols<T>;
#pragma unroll
  for (int p = 0; p < C / P; ++p)
    hopper::tma_load_3d(dst.data + p * R * P, &src.descriptor, int32_t(at.col + p * P), int32_t(at.row), int32_t(plane),
                        dst.ready);
}

namespace hopper {
// Panel p of the BR-row box at (at.row, at.col) of plane `plane` into rows [first_row, first_row + BR) of dst:
// one copy. A box row of 128-byte-swizzled shared memory is at most one panel wide, so a box of a wider tile
// is copied panel by panel; load_rows_async and load_row_boxes_async (row_boxes.h) differ only in the order.
template <class T, int R, int C, int BR>
__device__ __forceinline__ void load_box_panel(const SharedTile<T, R, C>& dst, int first_row, const TmaTensor<T, BR, C, 3>& src,
                                               int64_t plane, Coord at, int p, bool evict_first, uint64_t policy) {
  constexpr int P = panel_cols<T>;
  T* to = dst.data + p * R * P + first_row * P;
  if (evict_first)
    tma_load_3d(to, &src.descriptor, int32_t(at.col + p * P), int32_t(at.row), int32_t(plane), dst.ready, policy);
  else
    tma_load_3d(to, &src.descriptor, int32_t(at.col + p * P), int32_t(at.row), int32_t(plane), dst.ready);
}
}  // namespace hopper

// Fills rows [first_row, first_row + BR) of a taller tile with the BR-row box at (at.row, at.col) of plane
// `plane`: a tile gathered box by box from scattered places (the pages of a KV cache). The stage's barrier
// expects the whole tile, so every box of the tile must be loaded. first_row is a multiple of BR.
// ReadOnce (common.h): the boxes' lines are the first to leave L2.
template <int TH, class T, int R, int C, int BR, class... Hints>
__device__ __forceinline__ void load_rows_async(const Block<TH>&, const SharedTile<T, R, C>& dst, int first_row,
                                                const TmaTensor<T, BR, C, 3>& src, int64_t plane, Coord at, Hints...) {
  static_assert(R % BR == 0 && BR % 8 == 0, "boxes of whole 8-row swizzle atoms that tile the rows");
  static_assert((std::is_same_v<Hints, ReadOnce> && ...), "load_rows_async: the one hint is ReadOnce");
  constexpr bool evict_first = sizeof...(Hints) > 0;
  const uint64_t policy = evict_first ? hopper::evict_first_policy() : 0;
#pragma unroll
  for (int p = 0; p < C / hopper::panel_cols<T>; ++p) hopper::load_box_panel(dst, first_row, src, plane, at, p, evict_first, policy);
}

// Leaves dst out of this fill of its stage: a stage whose tiles are not all needed at every step (attention's
// stages carry keys or values, and keys are wider when Dqk > Dv: the extra columns are a tile of their own).
// The bytes the stage's barrier expects for dst count as arrived, with no copy. Called by the producer role
// (one thread) instead of load_async; dst holds nothing defined until a later fill loads it.
template <int TH, class T, int R, int C>
__device__ __forceinline__ void leave_unloaded(const Block<TH>&, const SharedTile<T, R, C>& dst) {
  hopper::barrier_complete_bytes(dst.ready, uint32_t(SharedTile<T, R, C>::bytes));
}

}  // namespace tessera::tile::cuda
