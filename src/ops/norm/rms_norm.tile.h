// RMSNorm as a tile kernel: each block normalises ROWS rows.
//
//   h        = x (+ residual, written back to sum_out)
//   inv_rms  = 1 / sqrt(sum(h^2) / n + eps)          -- one row reduction
//   y        = h * inv_rms * weight                   -- broadcast of a column and a row vector
//
// A row that fits in one COLS-wide tile is read once and kept in registers. Longer rows take two passes:
// the squares accumulate tile by tile, then each tile is read again (from sum_out when there is a
// residual, which this block wrote itself in the first pass) and normalised. ONE_PASS: the launcher
// guarantees n <= COLS, so the two-pass code is not compiled (its registers would lower the occupancy of
// the one-pass path). X is the type of x, the residual and the sum; Y that of y and the weight (an fp32
// residual stream normalised into 16-bit activations).
// WEIGHT_FIRST (a decode step's few rows, one block a row): where the caller promises that the kernel before this
// one did not write the weight (Options::weights_settled: a model's norm weight), the one-pass path asks for it
// before waiting for that kernel, so that its trip to DRAM passes while that kernel ends; x and the residual,
// which that kernel may write, are read after the wait. Such a norm is one block whose time is that chain of
// round trips. Many rows keep the wait at the kernel's entry and the weight after x: the weight-first form ran
// 16384 x 8192 at 61% of copy bandwidth against 88-90% (H200, bench/results/2026-11-30-h200-session53, run 5).
// RESIDUAL: the kernel may add a residual (Params::has_residual, a branch taken at run time). false: the launcher
// guarantees there is none and the residual's code is not compiled, so the kernel's registers are the plain
// norm's own: 16-bit rows then fit 64 registers a thread without spilling (4 blocks of 256 threads a
// multiprocessor at 8192 columns, 8 of 128 at 4096), where the kernel with the residual's code spills there:
// 16384 x 8192 bf16 at 96.4-96.8% of copy bandwidth against 91.2-91.4% (H200, session 58).
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class X, class Y, int ROWS, int COLS, int THREADS, bool ONE_PASS = false, bool WEIGHT_FIRST = false,
          bool RESIDUAL = true>
struct RmsNorm {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const X> x, residual;
    tile::View2<const Y> weight;
    tile::View2<X> sum_out;
    tile::View2<Y> y;
    float eps;
    bool has_residual;
    bool weight_settled;  // weight was not written by the kernel before (Options::weights_settled)
  };
  static constexpr bool waits_for_predecessor = WEIGHT_FIRST;  // after the weight, where it is settled

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t r0 = blk.bid(0) * ROWS;
    const int64_t n = p.x.extent[1];
    if (ONE_PASS || n <= COLS) {
      if constexpr (WEIGHT_FIRST) {
        // Kept in its own type until used: a cast here would wait for the load before the wait.
        const auto w = weight_then_wait(blk, p);
        one_pass(blk, p, r0, n, [&] { return w; });
      } else {
        one_pass(blk, p, r0, n, [&] { return weight_tile(blk, p); });
      }
      return;
    }
    if constexpr (!ONE_PASS) {
      if constexpr (WEIGHT_FIRST) wait_for_predecessor(blk);
      two_pass(blk, p, r0, n);
    }
  }

  // The row read once; weight() gives the weight's tile (loaded there, or before the wait).
  template <class Block, class Weight>
  TILE_DEVICE void one_pass(Block& blk, const Params& p, int64_t r0, int64_t n, Weight&& weight) const {
    auto h = cast<float>(load<ROWS, COLS>(blk, p.x, {r0, 0}));
    if constexpr (RESIDUAL) {
      if (p.has_residual) {
        h = h + cast<float>(load<ROWS, COLS>(blk, p.residual, {r0, 0}));
        store(blk, p.sum_out, {r0, 0}, cast<X>(h));
      }
    }
    const auto w = weight();  // in flight during the reduction
    const auto inv_rms = rsqrt(row_sum(h * h) / float(n) + p.eps);
    store(blk, p.y, {r0, 0}, cast<Y>(h * inv_rms * cast<float>(w)));
  }

  template <class Block>
  TILE_DEVICE auto weight_tile(Block& blk, const Params& p) const {
    return load<1, COLS>(blk, p.weight, {0, 0});
  }

  // The weight's tile, asked for before the wait for the kernel before this one where it is settled.
  template <class Block>
  TILE_DEVICE auto weight_then_wait(Block& blk, const Params& p) const {
    if (p.weight_settled) {
      const auto w = weight_tile(blk, p);
      wait_for_predecessor(blk);
      return w;
    }
    wait_for_predecessor(blk);
    return weight_tile(blk, p);
  }

  template <class Block>
  TILE_DEVICE void two_pass(Block& blk, const Params& p, int64_t r0, int64_t n) const {
    auto squares = zeros<float, ROWS, COLS>(blk);
    for (int64_t c0 = 0; c0 < n; c0 += COLS) {
      auto h = cast<float>(load<ROWS, COLS>(blk, p.x, {r0, c0}));
      if (RESIDUAL && p.has_residual) {
        h = h + cast<float>(load<ROWS, COLS>(blk, p.residual, {r0, c0}));
        store(blk, p.sum_out, {r0, c0}, cast<X>(h));
      }
      squares = squares + h * h;
    }
    const auto inv_rms = rsqrt(row_sum(squares) / float(n) + p.eps);
    for (int64_t c0 = 0; c0 < n; c0 += COLS) {
      const auto h = RESIDUAL && p.has_residual ? cast<float>(load<ROWS, COLS>(blk, p.sum_out, {r0, c0}))
                                    : cast<float>(load<ROWS, COLS>(blk, p.x, {r0, c0}));
      const auto w = cast<float>(load<1, COLS>(blk, p.weight, {0, c0}));
      store(blk, p.y, {r0, c0}, cast<Y>(h * inv_rms * w));
    }
  }
};

}  // namespace tessera::ops::kernels
