// The fused epilogue of the matmul family: alpha * act(acc + bias) + residual, on the fp32 accumulator tile.
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

struct EpilogueParams {
  int32_t activation;  // ops::Activation
  float alpha;
  bool has_bias, has_residual;
};

template <class Block, class Acc, class TB, class TR>
TILE_DEVICE auto apply_epilogue(Block& blk, const Acc& acc, const EpilogueParams& e, const tile::View2<const TB>& bias,
                                const tile::View2<const TR>& residual, int64_t m0, int64_t n0) {
  constexpr int BM = Acc::rows, BN = Acc::cols;
  auto x = acc;
  if (e.has_bias) x = x + cast<float>(load<1, BN>(blk, bias, {0, n0}));
  switch (e.activation) {
    case 1: x = x * 0.5f * (erf(x * 0.70710678118654752f) + 1.f); break;                            // gelu
    case 2: x = x * 0.5f * (tanh((x + x * x * x * 0.044715f) * 0.79788456080286536f) + 1.f); break;  // gelu_tanh
    case 3: x = x * sigmoid(x); break;                                                               // silu
    case 4: x = maximum(x, 0.f); break;                                                              // relu
    default: break;
  }
  if (e.alpha != 1.f) x = x * e.alpha;
  if (e.has_residual) x = x + cast<float>(load<BM, BN>(blk, residual, {m0, n0}));
  return x;
}

}  // namespace tessera::ops::kernels
