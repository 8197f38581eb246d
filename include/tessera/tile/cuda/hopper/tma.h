// The copy engine (TMA): tensor maps made on the host, tile loads that complete on a stage's barrier.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <cstring>
#include <string>

#include "tessera/runtime/cuda_check.h"
#include "tessera/runtime/error.h"
#include "tessera/tile/cuda/hopper/sync.h"
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
  static_assert(sizeof(T) == 2, "TMA tiles: 16-bit element types for now");
  return CU_TENSOR_MAP_DATA_TYPE_UINT16;
}
}  // namespace hopper

// Whether the copy engine can read `view` (16-byte aligned base and row stride, unit column stride).
template <class T>
inline bool tma_compatible(const View2<const T>& view) {
  return view.stride[1] == 1 && reinterpret_cast<uintptr_t>(view.data) % 16 == 0 &&
         (view.stride[0] * int64_t(sizeof(T))) % 16 == 0 && view.extent[0] > 0 && view.extent[1] > 0;
}

// A tensor map for boxes of BOX_ROWS x BOX_COLS, swizzled 128 bytes wide (BOX_COLS * sizeof(T) == 128) as
// the tensor cores read shared memory.
template <int BOX_ROWS, int BOX_COLS, class T>
TmaTensor<T, BOX_ROWS, BOX_COLS> make_tma_tensor(const View2<const T>& view) {
  static_assert(BOX_COLS * sizeof(T) == 128, "TMA boxes here are one 128-byte swizzle atom wide");
  static_assert(BOX_ROWS <= 256, "a TMA box has at most 256 rows");
  if (!tma_compatible(view)) invalid_argument("make_tma_tensor: the view is not 16-byte aligned with unit column stride");
  TmaTensor<T, BOX_ROWS, BOX_COLS> t;
  t.view = view;
  const cuuint64_t dims[2] = {cuuint64_t(view.extent[1]), cuuint64_t(view.extent[0])};
  const cuuint64_t strides[1] = {cuuint64_t(view.stride[0] * int64_t(sizeof(T)))};
  const cuuint32_t box[2] = {BOX_COLS, BOX_ROWS};
  const cuuint32_t elem_strides[2] = {1, 1};
  CUtensorMap map;
  const CUresult r = hopper::tensor_map_encoder()(
      &map, hopper::tma_dtype<T>(), 2, const_cast<T*>(view.data), dims, strides, box, elem_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) fail(Status::cuda_error, "cuTensorMapEncodeTiled failed with code " + std::to_string(int(r)));
  static_assert(sizeof(map) == sizeof(t.descriptor));
  std::memcpy(t.descriptor, &map, sizeof(map));
  return t;
}

// Starts the copy of the box at (at.row, at.col) into `dst`; it completes on dst's stage barrier. Called by
// the producer role (one thread). Elements outside the tensor arrive as zeros.
template <int TH, class T, int R, int C>
__device__ __forceinline__ void load_async(const Block<TH>&, const SharedTile<T, R, C>& dst, const TmaTensor<T, R, C>& src,
                                           Coord at) {
#if TESSERA_SM90A
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          hopper::shared_address(dst.data)),
      "l"(reinterpret_cast<uint64_t>(&src.descriptor)), "r"(int32_t(at.col)), "r"(int32_t(at.row)),
      "r"(hopper::shared_address(dst.ready))
      : "memory");
#else
  (void)dst; (void)src; (void)at; __trap();
#endif
}

}  // namespace tessera::tile::cuda
