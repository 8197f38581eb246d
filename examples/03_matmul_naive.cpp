// Step 3: a matmul as one tile operation. Each block computes one BM x BN tile of C = A @ B from a single
// BM x K tile of A and a K x BN tile of B: load both, mma into an fp32 accumulator, store.
//
// It only works while all of K fits in one tile (K <= K_MAX): the whole shared dimension sits in registers
// at once. Step 4 removes that limit with a loop over K. Edges in M and N cost nothing: loads past the ends
// read zeros, stores past the ends are dropped; K < K_MAX is padded with zeros, which add nothing.
//
//   run: example_03_matmul_naive [m] [n] [k <= 64]
#include "examples/harness.h"
#include "examples/matmul_reference.h"
#include "tessera/tile/tile.h"

using namespace tessera;

template <int BM, int BN, int K_MAX>
struct MatmulOneTile {
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
    mma(acc, load<BM, K_MAX>(blk, p.a, {m0, 0}), load<K_MAX, BN>(blk, p.b, {0, n0}));
    store(blk, p.c, {m0, n0}, acc);
  }
};

int main(int argc, char** argv) {
  if (!examples::backend_available()) return 0;
  constexpr int BM = 64, BN = 64, K_MAX = 64;
  const int64_t m = examples::arg(argc, argv, 1, examples::kOnGpu ? 8192 : 512);
  const int64_t n = examples::arg(argc, argv, 2, examples::kOnGpu ? 8192 : 512);
  const int64_t k = examples::arg(argc, argv, 3, K_MAX);
  std::printf("03_matmul_naive on %s: %lld x %lld x %lld\n", examples::backend_name(), (long long)m, (long long)n,
              (long long)k);
  if (m < 1 || n < 1 || k < 1 || k > K_MAX) { std::fprintf(stderr, "need 1 <= k <= %d (one tile of K)\n", K_MAX); return 2; }

  const auto a = examples::random_values<bf16>(size_t(m * k)), b = examples::random_values<bf16>(size_t(k * n));
  examples::Buffer<bf16> da(a), db(b);
  examples::Buffer<float> dc{size_t(m * n)};
  dc.poison();

  using K = MatmulOneTile<BM, BN, K_MAX>;
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

  const double ms = examples::median_ms(run);
  examples::print_matmul_rate(m, n, k, ms);
  return pass ? 0 : 1;
}
