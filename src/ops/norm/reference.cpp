// Plain C++ references of the norm family, in double precision, independent of the tile language.
#include <cmath>

#include "ops/common/views.h"
#include "ops/norm/args.h"

namespace tessera::ops::reference {

void rms_norm(const RmsNormArgs& a, const dispatch::Options&) {
  const int64_t n = a.x.size(-1), rows = a.x.numel() / std::max<int64_t>(n, 1);
  auto x = to_float_vector(a.x);
  const auto w = to_float_vector(a.weight);
  if (a.has_residual()) {
    const auto r = to_float_vector(a.residual);
    for (size_t i = 0; i < x.size(); ++i) x[i] += r[i];
    write_float_vector(a.residual_out, x);
    x = to_float_vector(a.residual_out);  // normalise the rounded sum, as the kernels do
  }
  std::vector<float> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (int64_t c = 0; c < n; ++c) ss += double(x[r * n + c]) * x[r * n + c];
    const double inv = 1.0 / std::sqrt(ss / double(n) + a.eps);
    for (int64_t c = 0; c < n; ++c) y[r * n + c] = float(x[r * n + c] * inv * w[c]);
  }
  write_float_vector(a.y, y);
}

void layer_norm(const LayerNormArgs& a, const dispatch::Options&) {
  const int64_t n = a.x.size(-1), rows = a.x.numel() / std::max<int64_t>(n, 1);
  const auto x = to_float_vector(a.x);
  const auto w = to_float_vector(a.weight);
  const auto b = to_float_vector(a.bias);
  std::vector<float> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int64_t c = 0; c < n; ++c) mean += x[r * n + c];
    mean /= double(n);
    for (int64_t c = 0; c < n; ++c) var += (x[r * n + c] - mean) * (x[r * n + c] - mean);
    const double rstd = 1.0 / std::sqrt(var / double(n) + a.eps);
    for (int64_t c = 0; c < n; ++c) y[r * n + c] = float((x[r * n + c] - mean) * rstd * w[c] + b[c]);
  }
  write_float_vector(a.y, y);
}

}  // namespace tessera::ops::reference
