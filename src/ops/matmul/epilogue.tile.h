// The fused epilogue of the matmul family: alpha * act(acc + bias) + residual, on the fp32 accumulator tile,
// whatever its layout: bias and residual are read in the accumulator's own layout (load_like). The bias
// arrives as an [M, N] view with row stride 0, so one row broadcasts over every output row.
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

struct EpilogueParams {
  int32_t activation;  // ops::Activation
  float alpha;
  bool has_bias, has_residual;
};

template <class Block, class Acc, class TB, class TR>
TILE_DEVICE auto apply_epilogue(Block& blk, const Acc& acc, const EpilogueParams& e, const tile::View2<const TB>& bias_rows,
                                const tile::View2<const TR>& residual, tile::Coord at) {
  auto x = acc;
  if (e.has_bias) x = x + cast<float>(load_like(blk, acc, bias_rows, at));
  switch (e.activation) {
    case 1: x = x * normal_cdf(x); break;                                                     // gelu
    case 2: x = x * sigmoid(x * (1.5957691216057308f + 0.0713548162726f * x * x)); break;  // gelu_tanh
    case 3: x = x * sigmoid(x); break;                                                               // silu
    case 4: x = maximum(x, 0.f); break;                                                              // relu
    default: break;
  }
  if (e.alpha != 1.f) x = x * e.alpha;
  if (e.has_residual) x = x + cast<float>(load_like(blk, acc, residual, at));
  return x;
}

// Stores an output tile of a staged kernel: through the copy engine (the pipeline's store_async) where the
// launcher found that it can write C (by_copy_engine: set_copy_engine_output), else from registers.
template <class Block, class Pipe, class TO, class Boxes, class Tl>
TILE_DEVICE void store_output(Block& blk, Pipe& pipe, const tile::View2<TO>& c, const Boxes& boxes, bool by_copy_engine,
                              tile::Coord at, const Tl& out) {
  if (by_copy_engine) return pipe.store_async(blk, boxes, at, out);
  store(blk, c, at, out);
}

// The epilogue of a staged kernel's tile, stored: where the copy engine reads the residual
// (residual_by_copy_engine), the store adds it on its way out (Pipeline::store_async with a source) instead of
// per-element loads in the epilogue; otherwise as store_output above. Params: the matmul's (c, c_boxes,
// c_by_copy_engine, residual_boxes, residual_by_copy_engine, epilogue, bias, residual).
template <class TO, class Block, class Pipe, class Params, class Acc>
TILE_DEVICE void store_epilogue(Block& blk, Pipe& pipe, const Params& p, const Acc& acc, tile::Coord at) {
  if (p.residual_by_copy_engine) {
    EpilogueParams without_residual = p.epilogue;
    without_residual.has_residual = false;
    return pipe.store_async(blk, p.c_boxes, at, apply_epilogue(blk, acc, without_residual, p.bias, p.residual, at),
                            p.residual_boxes);
  }
  store_output(blk, pipe, p.c, p.c_boxes, p.c_by_copy_engine, at,
               cast<TO>(apply_epilogue(blk, acc, p.epilogue, p.bias, p.residual, at)));
}

// The same tile stored with no epilogue math: C = acc, or acc + the residual where the copy engine adds it
// (residual_by_copy_engine). The launcher sends every other call to store_epilogue's kernel.
template <class TO, class Block, class Pipe, class Params, class Acc>
TILE_DEVICE void store_plain(Block& blk, Pipe& pipe, const Params& p, const Acc& acc, tile::Coord at) {
  if (p.residual_by_copy_engine) return pipe.store_async(blk, p.c_boxes, at, acc, p.residual_boxes);
  store_output(blk, pipe, p.c, p.c_boxes, p.c_by_copy_engine, at, cast<TO>(acc));
}

}  // namespace tessera::ops::kernels
