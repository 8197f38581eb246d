// The generic matmul's k loop (the kernel every GPU before Hopper runs, and Hopper for unaligned rows) in four
// forms, timed on the same inputs in one run (session 40):
//   blocked       the accumulator a Blocked tile (zeros), each product back through shared memory; 256 threads
//   blocked_pf    the same, the next k slice's loads issued before the product
//   fragment      mma_accumulator: products straight into the tensor cores' fragments; 128 threads
//   fragment_pf   the same with the next slice's loads first: the library's kernel (src/ops/matmul/matmul.tile.h)
// Shapes with K a multiple of 8 read whole 16-byte pieces; odd K (rows not 16-byte aligned) reads element by
// element. The result of each form is checked against the first form's (same sums, fp32; bf16 output).
// Build here (after the library):
//   nvcc -O3 -std=c++20 -I include -I src -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr \
//     -Xcudafe --diag_suppress=177 -DNDEBUG bench/probes/generic_matmul_accumulators.cu build/libtessera.a \
//     -o .device/probe/generic_matmul_accumulators
// Run there: .device/probe/generic_matmul_accumulators
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "median_time.h"
#include "random_bf16.h"
#include "tessera/tile/tile.h"

namespace probe {
using namespace tessera;
using tessera::bf16;
using tile::View2;

struct Params {
  View2<const bf16> a, b;  // a [M, K], b [N, K]
  View2<bf16> c;
};

template <bool FRAGMENT, bool PREFETCH, int BM, int BN, int BK, int TH>
struct KLoop {
  static constexpr int threads = TH;
  using Params = probe::Params;
  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t m0 = blk.bid(0) * BM, n0 = blk.bid(1) * BN, k_total = p.a.extent[1];
    auto acc = [&] {
      if constexpr (FRAGMENT) return mma_accumulator<BM, BN>(blk);
      else return zeros<float, BM, BN>(blk);
    }();
    if constexpr (PREFETCH) {
      auto a_next = load<BM, BK>(blk, p.a, {m0, 0});
      auto b_next = load<BN, BK>(blk, p.b, {n0, 0});
      for (int64_t k0 = 0; k0 < k_total; k0 += BK) {
        const auto a_tile = a_next;
        const auto b_tile = b_next;
        if (k0 + BK < k_total) {
          a_next = load<BM, BK>(blk, p.a, {m0, k0 + BK});
          b_next = load<BN, BK>(blk, p.b, {n0, k0 + BK});
        }
        mma_nt(acc, a_tile, b_tile);
      }
    } else {
      for (int64_t k0 = 0; k0 < k_total; k0 += BK) mma_nt(acc, load<BM, BK>(blk, p.a, {m0, k0}), load<BN, BK>(blk, p.b, {n0, k0}));
    }
    store(blk, p.c, {m0, n0}, cast<bf16>(acc));
  }
};

struct Shape { int64_t m, n, k; };

template <class K>
double time_form(const Params& p, int bm, int bn) {
  const Shape s{p.c.extent[0], p.c.extent[1], p.a.extent[1]};
  return median_us([&](int) { tile::cuda::launch<K>({(s.m + bm - 1) / bm, (s.n + bn - 1) / bn}, p, nullptr); }, 1, 15);
}

float to_float(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

int run() {
  const Shape shapes[] = {{4096, 4096, 4096}, {2048, 2048, 2048}, {1024, 1024, 1024}, {128, 4096, 4096},
                          {4096, 4096, 4095}, {1024, 1024, 1023}};
  size_t max_a = 0, max_b = 0, max_c = 0;
  for (const auto& s : shapes) {
    max_a = std::max<size_t>(max_a, s.m * s.k);
    max_b = std::max<size_t>(max_b, s.n * s.k);
    max_c = std::max<size_t>(max_c, s.m * s.n);
  }
  void *a, *b, *c0, *c1;
  cudaMalloc(&a, max_a * 2);
  cudaMalloc(&b, max_b * 2);
  cudaMalloc(&c0, max_c * 2);
  cudaMalloc(&c1, max_c * 2);
  fill_random_bf16(a, max_a * 2, 1, 1.f);
  fill_random_bf16(b, max_b * 2, 2, 1.f);
  std::printf("%-18s %12s %12s %12s %12s   (us; TFLOP/s of the fastest; max |diff| against blocked)\n", "M x N x K", "blocked",
              "blocked_pf", "fragment", "fragment_pf");
  for (const auto& s : shapes) {
    const View2<const bf16> av{static_cast<const bf16*>(a), {s.m, s.k}, {s.k, 1}};
    const View2<const bf16> bv{static_cast<const bf16*>(b), {s.n, s.k}, {s.k, 1}};
    const Params ref{av, bv, {static_cast<bf16*>(c0), {s.m, s.n}, {s.n, 1}}};
    const Params out{av, bv, {static_cast<bf16*>(c1), {s.m, s.n}, {s.n, 1}}};
    double us[4];
    float diff[4] = {0, 0, 0, 0};
    std::vector<uint16_t> h0(s.m * s.n), h1(s.m * s.n);
    auto check = [&](int i) {
      cudaDeviceSynchronize();
      cudaMemcpy(h0.data(), c0, h0.size() * 2, cudaMemcpyDeviceToHost);
      cudaMemcpy(h1.data(), c1, h1.size() * 2, cudaMemcpyDeviceToHost);
      for (size_t e = 0; e < h0.size(); ++e) diff[i] = std::max(diff[i], std::fabs(to_float(h0[e]) - to_float(h1[e])));
    };
    us[0] = time_form<KLoop<false, false, 64, 64, 32, 256>>(ref, 64, 64);
    us[1] = time_form<KLoop<false, true, 64, 64, 32, 256>>(out, 64, 64);
    check(1);
    us[2] = time_form<KLoop<true, false, 64, 64, 32, 128>>(out, 64, 64);
    check(2);
    us[3] = time_form<KLoop<true, true, 64, 64, 32, 128>>(out, 64, 64);
    check(3);
    const double best = std::min(std::min(us[0], us[1]), std::min(us[2], us[3]));
    char name[64];
    std::snprintf(name, sizeof name, "%lldx%lldx%lld", (long long)s.m, (long long)s.n, (long long)s.k);
    std::printf("%-18s %12.1f %12.1f %12.1f %12.1f   %.1f TFLOP/s; diff %.3g %.3g %.3g\n", name, us[0], us[1], us[2], us[3],
                2.0 * s.m * s.n * s.k / best * 1e-6, diff[1], diff[2], diff[3]);
  }
  return 0;
}
}  // namespace probe

int main() { return probe::run(); }
