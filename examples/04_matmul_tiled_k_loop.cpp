// Step 4: the k loop. K of any length is cut into BK-wide slices; each block keeps its BM x BN fp32
// accumulator in registers and adds one slice's product at a time:
//
//   acc = 0
//   for k0 in 0, BK, 2 BK, ... < K:   acc += A[m0 : m0+BM, k0 : k0+BK] @ B[k0 : k0+BK, n0 : n0+BN]
//   C[m0 : m0+BM, n0 : n0+BN] = acc
//
// Only BM x BK + BK x BN inputs are live at once, whatever K is, and every A and B element a block reads is
// used BN (or BM) times. Accumulating in fp32 keeps bf16 inputs accurate over long K. Edges are still
// padding: the last slice of K reads zeros past K, which add nothing, so K need not be a multiple of BK.
//
//   run: example_04_matmul_tiled_k_loop [m] [n] [k]
#include "examples/harness.h"
#include "examples/matmul_reference.h"
#include "tessera/tile/tile.h"

using namespace tessera;

template <int BM, int BN, int BK>
struct MatmulTiled {
  static constexpr int threads = 256;
  struct Params {
    tile::View2<const bf16> a;  // [M, K]
    tile::View2<const bf16> b;  // [K, N]
    tile::View2<float> c;       // [M, N]
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t m0 = blk.bid(0) * BM, n0 = blk.bid(1) * BN;
    auto acc = zeros<float, BM, BN>(blk);
    for (int64_t k0 = 0; k0 < p.a.extent[1]; k0 += BK)
      mma(acc, load<BM, BK>(blk, p.a, {m0, k0}), load<BK, BN>(blk, p.b, {k0, n0}));
    store(blk, p.c, {m0, n0}, acc);
  }
};

int main(int argc, char** argv) {
  if (!examples::backend_available()) return 0;
  constexpr int BM = 64, BN = 64, BK = 32;
  const int64_t m = examples::arg(argc, argv, 1, examples::kOnGpu ? 4096 : 256);
  const int64_t n = examples::arg(argc, argv, 2, examples::kOnGpu ? 4096 : 256);
  const int64_t k = examples::arg(argc, argv, 3, examples::kOnGpu ? 4096 : 256);
  std::printf("04_matmul_tiled_k_loop on %s: %lld x %lld x %lld\n", examples::backend_name(), (long long)m,
              (long long)n, (long long)k);
  if (m < 1 || n < 1 || k < 1) { std::fprintf(stderr, "sizes must be at least 1\n"); return 2; }

  const auto a = examples::random_values<bf16>(size_t(m * k)), b = examples::random_values<bf16>(size_t(k * n));
  examples::Buffer<bf16> da(a), db(b);
  examples::Buffer<float> dc{size_t(m * n)};
  dc.poison();

  using K = MatmulTiled<BM, BN, BK>;
  K::Params p{};
  p.a = examples::matrix<const bf16>(da.data(), m, k);
  p.b = examples::matrix<const bf16>(db.data(), k, n);
  p.c = examples::matrix(dc.data(), m, n);
  auto run = [&] { tile::active::launch<K>({(m + BM - 1) / BM, (n + BN - 1) / BN}, p, nullptr); };

  run();
  examples::synchronize();
  const auto rows = examples::rows_to_check(m, n, k);
  const auto want = examples::matmul_reference(examples::to_floats(a), examples::to_floats(b), rows, n, k, examples::BLayout::kn);
  const bool pass = examples::check("C = A @ B", examples::pick_rows(dc.download(), rows, n), want, examples::matmul_tolerance(k));

  const double ms = examples::median_ms(run, examples::kOnGpu ? 20 : 5, 1);
  examples::print_matmul_rate(m, n, k, ms);
  return pass ? 0 : 1;
}
