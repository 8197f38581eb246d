// Launchers of the norm family, compiled once per tile backend (host.cpp and cuda.cu include this file).
// Tile configurations, chosen per row width from sweeps on an H200 (bench/results/2026-11-23-h200-membound):
//   n <= 1024: four rows to a block of 128 threads;
//   n <= 4096: one row to a block of 128 threads, at least 6 blocks per multiprocessor (layer_norm of fp32
//              rows: 4);
//   n <= 8192: one row to a block of 256 threads, at least 3 blocks per multiprocessor (layer_norm of fp32
//              rows: 2);
// each with the row read once and kept in registers (one-pass kernels: the multi-pass code is not compiled,
// so it costs no registers). Wider rows take the multi-pass kernel, 8192 columns per tile.
// The minimum-blocks hints cap registers so that enough rows are in flight on each multiprocessor: a
// memory-bound row kernel is limited by the bytes it has in flight, and those live in registers. rms_norm
// gains from 3 blocks even with a few spilled registers (78% vs 68% of copy bandwidth); layer_norm reads its
// weight and bias after the reductions, so that x and d alone fill the registers meanwhile, and gains likewise
// (8192 columns: 3 blocks 80% of copy, 2 blocks 67%, 4 blocks 73%; 4096: 6 blocks 82%, 4 blocks 73%; session
// 25). Capped harder with them loaded early it lost badly (spills of ~240 bytes: 20% of copy). Kernels with less
// code fit tighter caps (session 58): 16-bit rows of exactly 4096 or 8192 columns take layer_norm's unmasked
// kernel, and 16-bit rows without a residual rms_norm's kernel without the residual's code, at 8 blocks (4096)
// and 4 blocks (8192) a multiprocessor.
#pragma once

#include "ops/common/views.h"
#include "ops/norm/args.h"
#include "ops/norm/layer_norm.tile.h"
#include "ops/norm/rms_norm.tile.h"

namespace tessera::ops::TESSERA_TILE_BACKEND {

namespace {
// f(X{}, Y{}) for the input and output types: the same, or an fp32 input normalised into f16/bf16.
template <class F>
void visit_norm_dtypes(DType x, DType y, F&& f) {
  visit_float_dtype(y, [&](auto ty) {
    if (x == DType::f32) f(float{}, ty);
    else f(ty, ty);
  });
}

template <class X, class Y, int ROWS, int COLS, int THREADS, bool ONE_PASS, int MIN_BLOCKS, bool WEIGHT_FIRST = false,
          bool RESIDUAL = true>
void launch_rms_norm(const RmsNormArgs& a, const dispatch::Options& opt) {
  using K = tile::MinBlocksPerSm<kernels::RmsNorm<X, Y, ROWS, COLS, THREADS, ONE_PASS, WEIGHT_FIRST, RESIDUAL>, MIN_BLOCKS>;
  typename K::Params p{};
  p.x = as_rows<const X>(a.x);
  p.weight = as_rows<const Y>(a.weight.reshape({1, a.weight.numel()}));
  p.y = as_rows<Y>(a.y);
  p.eps = a.eps;
  p.has_residual = a.has_residual();
  p.weight_settled = opt.weights_settled;
  if (p.has_residual) {
    p.residual = as_rows<const X>(a.residual);
    p.sum_out = as_rows<X>(a.residual_out);
  }
  const int64_t rows = p.x.extent[0];
  tile::active::launch<K>({(rows + ROWS - 1) / ROWS}, p, opt.stream);
}

template <class X, class Y, int ROWS, int COLS, int THREADS, bool ONE_PASS, int MIN_BLOCKS, bool FULL_ROWS = false>
void launch_layer_norm(const LayerNormArgs& a, const dispatch::Options& opt) {
  using K = tile::MinBlocksPerSm<kernels::LayerNorm<X, Y, ROWS, COLS, THREADS, ONE_PASS, FULL_ROWS>, MIN_BLOCKS>;
  typename K::Params p{};
  p.x = as_rows<const X>(a.x);
  p.weight = as_rows<const Y>(a.weight.reshape({1, a.weight.numel()}));
  p.bias = as_rows<const Y>(a.bias.reshape({1, a.bias.numel()}));
  p.y = as_rows<Y>(a.y);
  p.eps = a.eps;
  const int64_t rows = p.x.extent[0];
  tile::active::launch<K>({(rows + ROWS - 1) / ROWS}, p, opt.stream);
}
}  // namespace

void rms_norm(const RmsNormArgs& a, const dispatch::Options& opt) {
  visit_norm_dtypes(a.x.dtype(), a.y.dtype(), [&](auto tx, auto ty) {
    using X = decltype(tx);
    using Y = decltype(ty);
    const int64_t n = a.x.size(-1), rows = a.x.numel() / std::max<int64_t>(n, 1);
    if (n <= 1024) return launch_rms_norm<X, Y, 4, 1024, 128, true, 1>(a, opt);
    // A decode step's few rows: one block a row either way, so a block of 512 threads has a quarter of the
    // loads in series of 128 (its latency is the kernel's time; many rows want the smaller blocks, 6 an SM).
    // Its weight is asked for before the wait for the kernel before, where settled (rms_norm.tile.h).
    if (n <= 4096 && rows <= 64) return launch_rms_norm<X, Y, 1, 4096, 512, true, 1, true>(a, opt);
    if constexpr (sizeof(X) == 2) {
      // 16-bit rows without a residual: a kernel without the residual's code, under a tighter cap (rms_norm.tile.h).
      if (!a.has_residual() && n <= 4096) return launch_rms_norm<X, Y, 1, 4096, 128, true, 8, false, false>(a, opt);
      if (!a.has_residual() && n <= 8192) return launch_rms_norm<X, Y, 1, 8192, 256, true, 4, false, false>(a, opt);
    }
    if (n <= 4096) launch_rms_norm<X, Y, 1, 4096, 128, true, 6>(a, opt);
    else if (n <= 8192) launch_rms_norm<X, Y, 1, 8192, 256, true, 3>(a, opt);
    else launch_rms_norm<X, Y, 1, 8192, 256, false, 1>(a, opt);
  });
}

void layer_norm(const LayerNormArgs& a, const dispatch::Options& opt) {
  visit_norm_dtypes(a.x.dtype(), a.y.dtype(), [&](auto tx, auto ty) {
    using X = decltype(tx);
    using Y = decltype(ty);
    const int64_t n = a.x.size(-1);
    // An fp32 row takes twice the registers of a 16-bit one: under the hints measured for 16-bit rows it
    // spills (500 bytes a thread at 8192 columns), so it keeps the looser ones.
    constexpr bool wide = sizeof(X) == 4;
    // 16-bit rows of exactly 4096 or 8192 columns: a kernel of the unmasked path alone (LayerNorm's FULL_ROWS),
    // which fits 64 registers without spilling and so runs 4 blocks of 256 threads (8 of 128) a multiprocessor,
    // where the kernel of both paths spills there: bf16 16384 x 8192 at 94.8-97.1% of copy bandwidth against
    // 87.4-87.5% with 3 blocks of both paths, 4096 x 4096 88.8-91.1% against 87.4-89.0% (H200, session 58).
    if constexpr (sizeof(X) == 2) {
      if (n == 4096) return launch_layer_norm<X, Y, 1, 4096, 128, true, 8, true>(a, opt);
      if (n == 8192) return launch_layer_norm<X, Y, 1, 8192, 256, true, 4, true>(a, opt);
    }
    if (n <= 1024) launch_layer_norm<X, Y, 4, 1024, 128, true, 1>(a, opt);
    else if (n <= 4096) launch_layer_norm<X, Y, 1, 4096, 128, true, wide ? 4 : 6>(a, opt);
    else if (n <= 8192) launch_layer_norm<X, Y, 1, 8192, 256, true, wide ? 2 : 3>(a, opt);
    else launch_layer_norm<X, Y, 1, 8192, 256, false, 1>(a, opt);
  });
}

}  // namespace tessera::ops::TESSERA_TILE_BACKEND
