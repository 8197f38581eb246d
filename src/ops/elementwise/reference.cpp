// Plain C++ references of the elementwise family, independent of the tile language.
#include "ops/common/views.h"
#include "ops/elementwise/args.h"

namespace tessera::ops::reference {

void add(const AddArgs& a, const dispatch::Options&) {
  const auto x = to_float_vector(a.a), y = to_float_vector(a.b);
  std::vector<float> sum(x.size());
  for (size_t i = 0; i < x.size(); ++i) sum[i] = float(double(x[i]) + double(y[i]));
  write_float_vector(a.y, sum);
}

// to_float_vector is exact for every float dtype; write_float_vector rounds to the target's nearest even.
void cast(const CastArgs& a, const dispatch::Options&) { write_float_vector(a.y, to_float_vector(a.x)); }

void transpose(const TransposeArgs& a, const dispatch::Options&) {
  const int64_t rows = a.x.size(0), cols = a.x.size(1);
  const auto x = to_float_vector(a.x);
  std::vector<float> y(x.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) y[size_t(c * rows + r)] = x[size_t(r * cols + c)];
  write_float_vector(a.y, y);
}

}  // namespace tessera::ops::reference
