// Runners of the staged test kernels, one set per backend (tile_staged_host.cpp, tile_staged_cuda.cu). Each
// returns false where the backend cannot run them (CUDA without Hopper).
#pragma once
#include "tessera/runtime/tensor.h"

namespace tessera::tile_staged_tests {

#define TESSERA_TILE_STAGED_RUNNERS                                                                      \
  /* dst = cast(src) (+ add, or + dst in place) tile by tile through the copy engine (kStoreConfigs[config]) */ \
  bool store_async_tiles(int config, const Tensor& src, const Tensor& dst, const Tensor& add);            \
  /* dst [planes * rows, D] = cast(src) plane by plane through the resident tile (kStoreThroughConfigs) */ \
  bool store_through_tiles(int config, const Tensor& src, const Tensor& dst, int64_t planes);            \
  /* c = a @ b^T (a [M, K], b [N, K] bf16; c [M, N] f32), kMmaConfigs[config], at most max_blocks blocks */ \
  bool mma_store(int config, const Tensor& a, const Tensor& b, const Tensor& c, int64_t max_blocks);     \
  /* c = a @ b^T as mma_store, a's and b's slices in alternate fills of 128 x 64 stages (HalfLoadedStages) */ \
  bool half_loaded_mma(const Tensor& a, const Tensor& b, const Tensor& c, int64_t max_blocks);           \
  /* kSlicedConfigs[config]: q [rows <= 16, D], k and v [4 C NK, D] / [4 C NK, DV] bf16; the f32 outputs */ \
  bool sliced_products(int config, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* out); \
  /* kColumnSharesConfigs[config]: q [64, D], k [NK, D], v [NK, DV] bf16; the f32 outputs */           \
  bool column_shares_products(int config, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* out); \
  /* kSoloConfigs[config]: q [64, D], k [tiles NK, D], v [tiles NK, DV] bf16; o [64, DV], maxima [64, 1] f32 */ \
  bool solo_hand_out(int config, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o, const Tensor& maxima); \
  /* kRowBoxConfigs[config]: a [planes * rows, CA] and b [planes * rows, CB] bf16 as stacks of `planes`; fill f of */ \
  /* plane `plane` from the 16-row boxes at box_rows [fills, 4] (i32); a_out [fills 64, CA], b_out f32; eye [64, 64] */ \
  bool row_box_fills(int config, const Tensor& a, const Tensor& b, int64_t planes, int64_t plane, const Tensor& box_rows, \
                     const Tensor& eye, const Tensor& a_out, const Tensor& b_out);
namespace tile_host { TESSERA_TILE_STAGED_RUNNERS }
namespace tile_cuda { TESSERA_TILE_STAGED_RUNNERS }
#undef TESSERA_TILE_STAGED_RUNNERS

}  // namespace tessera::tile_staged_tests
