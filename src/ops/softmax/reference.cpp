// Plain C++ reference of the softmax family, in double precision, independent of the tile language.
#include <cmath>
#include <limits>

#include "ops/common/views.h"
#include "ops/softmax/args.h"

namespace tessera::ops::reference {

void softmax(const SoftmaxArgs& a, const dispatch::Options&) {
  const int64_t n = a.x.size(-1), rows = a.x.numel() / std::max<int64_t>(n, 1);
  const auto x = to_float_vector(a.x);
  std::vector<float> y(x.size());
  std::vector<double> s(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows; ++r) {
    double m = -std::numeric_limits<double>::infinity();
    for (int64_t c = 0; c < n; ++c) {
      s[c] = double(a.scale) * x[r * n + c];
      m = std::max(m, s[c]);
    }
    if (m == -std::numeric_limits<double>::infinity()) {  // every entry -inf: zeros
      for (int64_t c = 0; c < n; ++c) y[r * n + c] = 0.f;
      continue;
    }
    double sum = 0;
    for (int64_t c = 0; c < n; ++c) sum += std::exp(s[c] - m);
    for (int64_t c = 0; c < n; ++c) y[r * n + c] = float(std::exp(s[c] - m) / sum);
  }
  write_float_vector(a.y, y);
}

}  // namespace tessera::ops::reference
