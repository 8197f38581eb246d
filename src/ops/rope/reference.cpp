// Plain C++ reference of the rope family, in double precision, independent of the tile language.
#include <cmath>

#include "ops/common/views.h"
#include "ops/rope/args.h"

namespace tessera::ops::reference {

void rope(const RopeArgs& a, const dispatch::Options&) {
  const int64_t tokens = a.x.size(0), heads = a.x.size(1), d = a.x.size(2), half = a.rotary_dim / 2;
  const auto x = to_float_vector(a.x);
  const auto pos = to_int_vector(a.positions);
  const auto freq = to_float_vector(a.inv_freq);
  std::vector<float> y = x;  // features past rotary_dim are copied
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t base = (t * heads + h) * d;
      for (int64_t i = 0; i < half; ++i) {
        const double angle = double(pos[t]) * double(freq[i]);
        const double c = std::cos(angle), s = std::sin(angle);
        const int64_t i1 = a.layout == RopeLayout::interleaved ? 2 * i : i;
        const int64_t i2 = a.layout == RopeLayout::interleaved ? 2 * i + 1 : i + half;
        const double x1 = x[base + i1], x2 = x[base + i2];
        y[base + i1] = float(x1 * c - x2 * s);
        y[base + i2] = float(x2 * c + x1 * s);
      }
    }
  write_float_vector(a.y, y);
}

}  // namespace tessera::ops::reference
