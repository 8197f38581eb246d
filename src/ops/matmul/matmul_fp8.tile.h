// fp8 matmul with per-tensor scales as a tile kernel: the generic kernel's loop on fp8 e4m3 operands, each
// tile widened to bf16 on load (exact: every e4m3 value is a bf16 value) so the bf16 tensor-core mma does the
// math; the two dequantization scales are applied once, to the fp32 accumulator.
//
//   acc = 0
//   for each BK-wide slice k:  acc += bf16(A[m-tile, k]) @ bf16(B[n-tile, k])^T
//   C[m-tile, n-tile] = scale * acc
#pragma once
#include "tessera/tile/tile.h"

namespace tessera::ops::kernels {

template <class TO, int BM, int BN, int BK, int THREADS>
struct MatmulFp8 {
  static constexpr int threads = THREADS;
  struct Params {
    tile::View2<const fp8_e4m3> a, b;  // a [M, K]; b [N, K]
    tile::View2<TO> c;                 // [M, N]
    float scale;                       // scale_a * scale_b
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t m0 = blk.bid(0) * BM, n0 = blk.bid(1) * BN;
    const int64_t k_total = p.a.extent[1];
    auto acc = zeros<float, BM, BN>(blk);
    for (int64_t k0 = 0; k0 < k_total; k0 += BK) {
      const auto a = cast<bf16>(load<BM, BK>(blk, p.a, {m0, k0}));
      const auto b = cast<bf16>(load<BN, BK>(blk, p.b, {n0, k0}));
      mma(acc, a, transpose(b));
    }
    store(blk, p.c, {m0, n0}, cast<TO>(acc * p.scale));
  }
};

}  // namespace tessera::ops::kernels
