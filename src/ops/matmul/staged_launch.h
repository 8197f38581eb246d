// The launchers that matmul (launch.h) and matmul_fp8 (fp8_launch.h) share, compiled once per tile backend:
// the staged kernel's (MatmulStaged, one 128-byte swizzle panel of K a stage: 64 16-bit or 128 fp8 elements)
// and the few-rows kernel's (MatmulFewRows), with the epilogue's views.
// The configurations and why each exists are in launch.h.
#pragma once
#include <algorithm>
#include <type_traits>
#include <utility>

#include "ops/common/views.h"
#include "ops/matmul/args.h"
#include "ops/matmul/matmul_rows.tile.h"
#include "ops/matmul/matmul_staged.tile.h"
#include "tessera/runtime/workspace.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
template <class T>
tile::View2<const T> bias_rows(const MatmulArgs& a, int64_t m) {
  tile::View2<const T> v{};
  if (!a.epilogue.bias.data()) return v;
  v.data = static_cast<const T*>(a.epilogue.bias.data());
  v.extent[0] = m;
  v.extent[1] = a.epilogue.bias.numel();
  v.stride[0] = 0;
  v.stride[1] = 1;
  return v;
}

template <class K, class T, class TO>
void fill_epilogue(typename K::Params& p, const MatmulArgs& a, int64_t m) {
  const auto& e = a.epilogue;
  p.epilogue = {int32_t(e.activation), e.alpha, e.bias.data() != nullptr, e.residual.data() != nullptr};
  p.bias = bias_rows<T>(a, m);
  if (p.epilogue.has_residual) p.residual = as_rows<const TO>(e.residual);
}


// ---- the staged kernel ----

// C for a staged kernel's copy-engine stores (store_output), where the copy engine can write it; else the
// kernel stores from registers.
template <class Params>
void set_copy_engine_output(Params& p, const Tensor& c) {
  using TO = std::remove_pointer_t<decltype(p.c.data)>;
  const tile::View2<const TO> view = as_rows<const TO>(c);
  p.c_by_copy_engine = tile::tma_store_compatible(view);
  if (p.c_by_copy_engine) p.c_boxes = tile::active::make_tma_tensor<16, 128 / sizeof(TO)>(view);
}

// How many parts to cut K into when the tiles alone leave multiprocessors idle (fewer tiles than SMs): the
// split count whose tiles x splits work items fill whole waves of `sms` blocks best, the smallest unless a
// larger one is clearly better, each part at least 4 slices of K. With a wave or more of tiles, no split:
// every split writes and reads back a tile of fp32 partial sums (splitting 4096^3 into 16 parts on 128 x 128
// tiles made it 3x slower on an H200).
int64_t choose_splits(int64_t tiles, int64_t k_tiles, int64_t sms) {
  if (tiles >= sms) return 1;
  int64_t best = 1;
  double best_eff = 0;
  for (int64_t s = 1; s <= 16 && (s == 1 || k_tiles / s >= 4); ++s) {
    const int64_t items = tiles * s, waves = (items + sms - 1) / sms;
    const double eff = double(items) / double(waves * sms);
    if (eff > best_eff + 0.02) { best = s; best_eff = eff; }
  }
  return best;
}

// Whether a staged kernel's copy engine adds the residual as it stores C: where it writes C and can read the
// residual too.
template <class TO>
bool residual_by_copy_engine(const MatmulArgs& a) {
  return a.epilogue.residual.data() != nullptr && tile::tma_store_compatible(as_rows<const TO>(a.c)) &&
         tile::tma_compatible(as_rows<const TO>(a.epilogue.residual));
}

// Whether a call needs the staged kernel compiled with the fused epilogue: a bias, an activation, a scale, or
// a residual the consumers must read themselves.
template <class TO>
bool needs_fused_epilogue(const MatmulArgs& a, bool copy_engine_stores = true) {
  const Epilogue& e = a.epilogue;
  return e.bias.data() != nullptr || e.activation != Activation::none || e.alpha != 1.f ||
         (e.residual.data() != nullptr && !(copy_engine_stores && residual_by_copy_engine<TO>(a)));
}

// Each configuration is compiled twice: with the fused epilogue and without it. The plain kernel serves calls
// that need none of it (needs_fused_epilogue), the fused one the others. COPY_ENGINE_STORES = false: the
// configurations of GPUs before Hopper (C stored from registers, the residual read by the epilogue).
template <class T, class TO, int BM, int BN, int STAGES, int CONSUMERS,
          tile::Consumers MODE = tile::Consumers::cooperative, int CLUSTER = 1, bool FUSED_EPILOGUE = false,
          bool COPY_ENGINE_STORES = true>
void launch_staged(const MatmulArgs& a, const dispatch::Options& opt) {
  if constexpr (!FUSED_EPILOGUE) {
    if (needs_fused_epilogue<TO>(a, COPY_ENGINE_STORES))
      return launch_staged<T, TO, BM, BN, STAGES, CONSUMERS, MODE, CLUSTER, true, COPY_ENGINE_STORES>(a, opt);
  }
  using K = kernels::MatmulStaged<T, TO, BM, BN, 128 / int(sizeof(T)), STAGES, CONSUMERS, MODE, CLUSTER, FUSED_EPILOGUE,
                                  COPY_ENGINE_STORES>;
  typename K::Params p{};
  p.a = tile::active::make_tma_tensor<BM, K::bk>(as_rows<const T>(a.a));
  p.b = tile::active::make_tma_tensor<BN / CLUSTER, K::bk>(as_rows<const T>(a.b));
  p.c = as_rows<TO>(a.c);
  const int64_t m = p.c.extent[0], n = p.c.extent[1], k = a.a.size(-1);
  const int64_t sms = tile::active::multiprocessor_count();
  fill_epilogue<K, T, TO>(p, a, m);
  if constexpr (COPY_ENGINE_STORES) {
    set_copy_engine_output(p, a.c);
    p.residual_by_copy_engine = residual_by_copy_engine<TO>(a);
    if (p.residual_by_copy_engine) p.residual_boxes = tile::active::make_tma_tensor<16, 128 / sizeof(TO)>(p.residual);
  }
  p.k_tiles = (k + K::bk - 1) / K::bk;
  p.schedule = {(m + BM - 1) / BM, (n + BN - 1) / BN, 8, 1, CLUSTER};
  p.schedule.splits = K::may_split ? choose_splits(p.schedule.tiles(), p.k_tiles, sms) : 1;
  p.k_tiles_per_split = (p.k_tiles + p.schedule.splits - 1) / p.schedule.splits;
  p.schedule.splits = (p.k_tiles + p.k_tiles_per_split - 1) / p.k_tiles_per_split;  // no empty split
  if (p.schedule.splits > 1) {
    const int64_t tiles = p.schedule.tiles(), floats = p.schedule.splits * tiles * BM * BN;
    p.partials.data = static_cast<float*>(workspace("matmul.split_k", size_t(floats) * sizeof(float), a.c.device(), opt.stream));
    p.partials.extent[0] = floats;
    p.partials.stride[0] = 1;
    p.arrivals.data = static_cast<int32_t*>(
        zeroed_workspace("matmul.split_k_arrivals", size_t(tiles) * sizeof(int32_t), a.c.device(), opt.stream));
    p.arrivals.extent[0] = p.schedule.tile_rows; p.arrivals.extent[1] = p.schedule.tile_cols;
    p.arrivals.stride[0] = p.schedule.tile_cols; p.arrivals.stride[1] = 1;
  }
  tile::active::launch<K>({tile::active::persistent_blocks<K>(p.schedule.count())}, p, opt.stream);
}

// The staged kernel on the tile library's sm_80 pipeline (GPUs before Hopper): cooperative consumers, no
// clusters, C from registers.
template <class T, class TO, int BM, int BN, int STAGES, int CONSUMERS>
void launch_staged_sm80(const MatmulArgs& a, const dispatch::Options& opt) {
  launch_staged<T, TO, BM, BN, STAGES, CONSUMERS, tile::Consumers::cooperative, 1, false, false>(a, opt);
}

// Its shared memory, which decides where a configuration fits (164 KB a block on an A100, 99 KB on Ada).
template <class T, class TO, int BM, int BN, int STAGES, int CONSUMERS>
constexpr size_t staged_sm80_shared_bytes() {
  return kernels::MatmulStaged<T, TO, BM, BN, 128 / int(sizeof(T)), STAGES, CONSUMERS, tile::Consumers::cooperative, 1, false,
                               false>::shared_bytes;
}

// A view of the same elements with rows and columns exchanged.
template <class T>
tile::View2<T> transposed(tile::View2<T> v) {
  std::swap(v.extent[0], v.extent[1]);
  std::swap(v.stride[0], v.stride[1]);
  return v;
}

// C^T [N, M] and its epilogue's bias (one value per row of C^T) and residual, as the swap-AB and few-rows
// kernels take them.
template <class T, class TO, class Params>
void fill_transposed_output(Params& p, const MatmulArgs& a) {
  const auto c = as_rows<TO>(a.c);
  const int64_t m = c.extent[0], n = c.extent[1];
  p.c = transposed(c);
  const auto& e = a.epilogue;
  p.epilogue = {int32_t(e.activation), e.alpha, e.bias.data() != nullptr, e.residual.data() != nullptr};
  if (p.epilogue.has_bias) {
    p.bias.data = static_cast<const T*>(e.bias.data());
    p.bias.extent[0] = n; p.bias.extent[1] = m;
    p.bias.stride[0] = 1; p.bias.stride[1] = 0;
  }
  if (p.epilogue.has_residual) p.residual = transposed(as_rows<const TO>(e.residual));
}

// ---- the few-rows kernel (decode at batch 1 to 4) ----

// M = 1 exactly, or 2-4 padded to 4; the weight tile BN x 1024 over 128 threads (BN rows x 8 columns a thread;
// fp8 weights BN x 2048, 16 bytes a thread as 16-bit ones), DEPTH tiles in flight, at least MIN_BLOCKS blocks a
// multiprocessor: the bytes in flight are what the kernel runs on, and rows1_bn4_x2 left to itself takes 130
// registers, 3 blocks (65 us at 1 x 28672 x 4096 against 56 us with 4 blocks, session 25). CHUNKED: running
// chunk sums for accumulators (matmul_rows.tile.h).
template <class T, class TO, int M, int BN, int DEPTH, int MIN_BLOCKS = 1, bool CHUNKED = false>
void launch_few_rows_m(const MatmulArgs& a, const dispatch::Options& opt) {
  using K = tile::MinBlocksPerSm<kernels::MatmulFewRows<T, TO, M, BN, sizeof(T) == 1 ? 2048 : 1024, 128, DEPTH, CHUNKED>, MIN_BLOCKS>;
  typename K::Params p{};
  p.a = as_rows<const T>(a.a);
  p.b = as_rows<const T>(a.b);
  fill_transposed_output<T, TO>(p, a);
  p.weights_settled = opt.weights_settled;
  tile::active::launch<K>({(p.c.extent[0] + BN - 1) / BN}, p, opt.stream);
}
}  // namespace

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
