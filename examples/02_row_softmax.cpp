// Step 2: softmax over each row, online, in exp2. A reduction across a tile (row_max, row_sum) and a value
// carried from one column tile to the next.
//
// Each block owns ROWS rows and walks them COLS columns at a time. The running max m and running sum l are
// ROWS x 1 tiles; when a new tile raises the max, the sum so far is rescaled (the online softmax of
// Milakov & Gimelshein), so a row of any length is read twice: once for m and l, once to write
// y = exp(x - m) / l. exp(x) is computed as exp2(x * log2(e)): the GPU's fast exponential is base 2.
//
//   m = -inf, l = 0
//   for each column tile x:   m' = max(m, row_max(x));  l = l * exp2((m - m') k) + row_sum(exp2((x - m') k));  m = m'
//   for each column tile x:   y = exp2((x - m) k) / l                       k = log2(e)
//
// Columns past the row's end load as -inf, so they weigh exp2(-inf) = 0 and need no mask. (Rows past the
// last one load as -inf too; their results are NaN and never stored.)
//
//   run: example_02_row_softmax [rows] [cols]
#include <limits>

#include "examples/harness.h"
#include "tessera/tile/tile.h"

using namespace tessera;

template <int ROWS, int COLS>
struct RowSoftmax {
  static constexpr int threads = 128;
  struct Params {
    tile::View2<const float> x;
    tile::View2<float> y;
  };

  template <class Block>
  TILE_DEVICE void operator()(Block& blk, const Params& p) const {
    constexpr float neg_inf = -std::numeric_limits<float>::infinity();
    constexpr float k = 1.4426950408889634f;  // log2(e)
    const int64_t r0 = blk.bid(0) * ROWS, n = p.x.extent[1];

    // The first tile starts m and l (column 0 exists, so m is finite from here on).
    auto x = load<ROWS, COLS>(blk, p.x, {r0, 0}, neg_inf);
    auto m = row_max(x);
    auto l = row_sum(exp2((x - m) * k));
    for (int64_t c0 = COLS; c0 < n; c0 += COLS) {
      x = load<ROWS, COLS>(blk, p.x, {r0, c0}, neg_inf);
      const auto m_new = maximum(m, row_max(x));
      l = l * exp2((m - m_new) * k) + row_sum(exp2((x - m_new) * k));
      m = m_new;
    }
    const auto inv_l = 1.f / l;
    for (int64_t c0 = 0; c0 < n; c0 += COLS)
      store(blk, p.y, {r0, c0}, exp2((load<ROWS, COLS>(blk, p.x, {r0, c0}, neg_inf) - m) * k) * inv_l);
  }
};

// The reference: the textbook three passes per row, in double.
std::vector<double> reference(const std::vector<float>& x, int64_t rows, int64_t cols) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = &x[size_t(r * cols)];
    double m = xr[0], sum = 0;
    for (int64_t c = 1; c < cols; ++c) m = std::max(m, double(xr[c]));
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(double(xr[c]) - m);
    for (int64_t c = 0; c < cols; ++c) y[size_t(r * cols + c)] = std::exp(double(xr[c]) - m) / sum;
  }
  return y;
}

int main(int argc, char** argv) {
  if (!examples::backend_available()) return 0;
  constexpr int ROWS = 4, COLS = 1024;
  const int64_t rows = examples::arg(argc, argv, 1, examples::kOnGpu ? 16384 : 1024);
  const int64_t cols = examples::arg(argc, argv, 2, 4000);  // not a multiple of COLS: the last tile is partial
  std::printf("02_row_softmax on %s: %lld x %lld\n", examples::backend_name(), (long long)rows, (long long)cols);
  if (rows < 1 || cols < 1) { std::fprintf(stderr, "rows and cols must be at least 1\n"); return 2; }

  const auto x = examples::random_values<float>(size_t(rows * cols), -8.f, 8.f);
  examples::Buffer<float> dx(x), dy{size_t(rows * cols)};
  dy.poison();

  using K = RowSoftmax<ROWS, COLS>;
  K::Params p{};
  p.x = examples::matrix<const float>(dx.data(), rows, cols);
  p.y = examples::matrix(dy.data(), rows, cols);
  auto run = [&] { tile::active::launch<K>({(rows + ROWS - 1) / ROWS}, p, nullptr); };

  run();
  examples::synchronize();
  const bool pass = examples::check("softmax", dy.download(), reference(x, rows, cols), 1e-6);

  const double ms = examples::median_ms(run);
  // Bytes that must move: x read (twice here; the second read often hits L2) and y written once.
  std::printf("time %.4f ms, %.1f GB/s (x read once + y written)\n", ms, 2.0 * 4 * double(rows * cols) / (ms * 1e6));
  return pass ? 0 : 1;
}
