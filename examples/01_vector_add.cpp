// Step 1: c = a + b. The smallest tile kernel: a view of global memory, a grid of blocks, load, add, store.
//
// A tile kernel is a struct with a Params (what the launcher passes: views and scalars) and an operator()
// that one block runs. Each block takes one TILE-wide piece of the vectors. Edges need no code: the views
// know their extents, so a load past the end reads padding and a store past the end is dropped.
//
//   run: example_01_vector_add [n]
#include "examples/harness.h"
#include "tessera/tile/tile.h"

using namespace tessera;

template <int TILE>
struct VectorAdd {
  static constexpr int threads = 256;  // GPU threads that share one block's tile; the host ignores it
  struct Params {
    tile::View2<const float> a, b;  // [1, n]: a vector is a one-row matrix to the tile language
    tile::View2<float> c;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    const tile::Coord at{0, blk.bid(0) * TILE};
    store(blk, p.c, at, load<1, TILE>(blk, p.a, at) + load<1, TILE>(blk, p.b, at));
  }
};

// The reference: a plain loop, independent of the tile language. A float add is exact-rounded, so the
// kernel must match it bit for bit (tolerance 0).
std::vector<double> reference(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<double> c(a.size());
  for (size_t i = 0; i < a.size(); ++i) c[i] = a[i] + b[i];
  return c;
}

int main(int argc, char** argv) {
  if (!examples::backend_available()) return 0;
  constexpr int TILE = 2048;
  const int64_t n = examples::arg(argc, argv, 1, examples::kOnGpu ? int64_t(1) << 26 : int64_t(1) << 22);
  std::printf("01_vector_add on %s: n = %lld\n", examples::backend_name(), (long long)n);

  const auto a = examples::random_values<float>(size_t(n)), b = examples::random_values<float>(size_t(n));
  examples::Buffer<float> da(a), db(b), dc{size_t(n)};
  dc.poison();

  using K = VectorAdd<TILE>;
  K::Params p{};
  p.a = examples::matrix<const float>(da.data(), 1, n);
  p.b = examples::matrix<const float>(db.data(), 1, n);
  p.c = examples::matrix(dc.data(), 1, n);
  auto run = [&] { tile::active::launch<K>({(n + TILE - 1) / TILE}, p, nullptr); };

  run();
  examples::synchronize();
  const bool pass = examples::check("c = a + b", dc.download(), reference(a, b), 0.0);

  const double ms = examples::median_ms(run);
  std::printf("time %.4f ms, %.1f GB/s (3 x %lld x 4 bytes)\n", ms, 3.0 * 4 * double(n) / (ms * 1e6), (long long)n);
  return pass ? 0 : 1;
}
