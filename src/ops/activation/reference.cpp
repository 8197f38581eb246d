// Plain C++ references of the activation family, in double precision, independent of the tile language.
#include <cmath>

#include "ops/activation/args.h"
#include "ops/common/views.h"

namespace tessera::ops::reference {

void gelu(const GeluArgs& a, const dispatch::Options&) {
  auto v = to_float_vector(a.x);
  const double k = std::sqrt(2.0 / M_PI);
  for (auto& f : v) {
    const double x = f;
    const double phi = a.approx == GeluApprox::tanh ? 0.5 * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)))
                                                    : 0.5 * (1.0 + std::erf(x / std::sqrt(2.0)));
    f = float(x * phi);
  }
  write_float_vector(a.y, v);
}

void silu_and_mul(const SiluAndMulArgs& a, const dispatch::Options&) {
  const int64_t n = a.y.size(-1), rows = a.y.numel() / std::max<int64_t>(n, 1);
  const auto x = to_float_vector(a.x);
  std::vector<float> y(size_t(rows * n));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < n; ++c) {
      const double g = x[r * 2 * n + c], u = x[r * 2 * n + n + c];
      y[r * n + c] = float(g / (1.0 + std::exp(-g)) * u);
    }
  write_float_vector(a.y, y);
}

}  // namespace tessera::ops::reference
