// Plain C++ reference of the sampling family, independent of the tile language.
#include <cmath>
#include <cstring>

#include "ops/common/views.h"
#include "ops/sampling/args.h"

namespace tessera::ops::reference {

void argmax(const ArgmaxArgs& a, const dispatch::Options&) {
  const int64_t n = a.x.size(-1), rows = a.x.numel() / n;
  const auto x = to_float_vector(a.x);
  std::vector<int32_t> out(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * n;
    int64_t best = -1;
    for (int64_t c = 0; c < n; ++c)
      if (!std::isnan(row[c]) && (best < 0 || row[c] > row[best])) best = c;
    out[size_t(r)] = int32_t(best < 0 ? 0 : best);
  }
  copy_bytes(a.out.data(), a.out.device(), out.data(), Device::cpu(), out.size() * sizeof(int32_t));
}

}  // namespace tessera::ops::reference
