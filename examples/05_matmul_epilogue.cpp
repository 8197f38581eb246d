// Step 5: a fused epilogue. C = silu(A @ B + bias), where the bias and the activation are applied to the
// fp32 accumulator while it is still in registers, before the one store. Unfused, a second kernel would read
// C back and write it again: three passes over C in memory instead of one.
//
// The accumulator's elements are spread over the GPU threads in the tensor cores' layout, not the layout a
// plain load gives. So the bias is read with load_like(acc): a tile shaped and distributed like acc. The
// bias is a vector of N; seen as an [M, N] view whose row stride is 0, every row of it is the same vector,
// which is what broadcasting over the rows of the tile needs.
//
//   run: example_05_matmul_epilogue [m] [n] [k]
#include "examples/harness.h"
#include "examples/matmul_reference.h"
#include "tessera/tile/tile.h"

using namespace tessera;

template <int BM, int BN, int BK>
struct MatmulBiasSilu {
  static constexpr int threads = 256;
  struct Params {
    tile::View2<const bf16> a;      // [M, K]
    tile::View2<const bf16> b;      // [K, N]
    tile::View2<const float> bias;  // [M, N] with row stride 0: one vector of N for every row
    tile::View2<float> c;           // [M, N]
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const int64_t m0 = blk.bid(0) * BM, n0 = blk.bid(1) * BN;
    auto acc = zeros<float, BM, BN>(blk);
    for (int64_t k0 = 0; k0 < p.a.extent[1]; k0 += BK)
      mma(acc, load<BM, BK>(blk, p.a, {m0, k0}), load<BK, BN>(blk, p.b, {k0, n0}));
    const auto z = acc + load_like(blk, acc, p.bias, {m0, n0});
    store(blk, p.c, {m0, n0}, z * sigmoid(z));  // silu(z) = z * sigmoid(z)
  }
};

int main(int argc, char** argv) {
  if (!examples::backend_available()) return 0;
  constexpr int BM = 64, BN = 64, BK = 32;
  const int64_t m = examples::arg(argc, argv, 1, examples::kOnGpu ? 4096 : 256);
  const int64_t n = examples::arg(argc, argv, 2, examples::kOnGpu ? 4096 : 256);
  const int64_t k = examples::arg(argc, argv, 3, examples::kOnGpu ? 4096 : 256);
  std::printf("05_matmul_epilogue on %s: %lld x %lld x %lld\n", examples::backend_name(), (long long)m, (long long)n,
              (long long)k);
  if (m < 1 || n < 1 || k < 1) { std::fprintf(stderr, "sizes must be at least 1\n"); return 2; }

  const auto a = examples::random_values<bf16>(size_t(m * k)), b = examples::random_values<bf16>(size_t(k * n));
  const auto bias = examples::random_values<float>(size_t(n));
  examples::Buffer<bf16> da(a), db(b);
  examples::Buffer<float> dbias(bias), dc{size_t(m * n)};
  dc.poison();

  using K = MatmulBiasSilu<BM, BN, BK>;
  K::Params p{};
  p.a = examples::matrix<const bf16>(da.data(), m, k);
  p.b = examples::matrix<const bf16>(db.data(), k, n);
  p.bias = {dbias.data(), {m, n}, {0, 1}};
  p.c = examples::matrix(dc.data(), m, n);
  auto run = [&] { tile::active::launch<K>({(m + BM - 1) / BM, (n + BN - 1) / BN}, p, nullptr); };

  run();
  examples::synchronize();
  const auto rows = examples::rows_to_check(m, n, k);
  const auto want = examples::matmul_reference(examples::to_floats(a), examples::to_floats(b), rows, n, k,
                                               examples::BLayout::kn, &bias, /*silu=*/true);
  const bool pass = examples::check("C = silu(A @ B + bias)", examples::pick_rows(dc.download(), rows, n), want, examples::matmul_tolerance(k));

  const double ms = examples::median_ms(run, examples::kOnGpu ? 20 : 5, 1);
  examples::print_matmul_rate(m, n, k, ms);
  return pass ? 0 : 1;
}
