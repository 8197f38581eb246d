// Plain C++ reference of matmul_fp8: the fp8 values widened to float, products summed in double, then scaled.
#include "ops/common/views.h"
#include "ops/matmul/args.h"

namespace tessera::ops::reference {

void matmul_fp8(const MatmulFp8Args& args, const dispatch::Options&) {
  const int64_t k = args.a.size(-1), n = args.c.size(-1), m = args.c.numel() / std::max<int64_t>(n, 1);
  const auto a = to_float_vector(args.a), b = to_float_vector(args.b);
  std::vector<float> c(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t kk = 0; kk < k; ++kk) s += double(a[size_t(i * k + kk)]) * double(b[size_t(j * k + kk)]);
      c[size_t(i * n + j)] = float(s * double(args.scale));
    }
  write_float_vector(args.c, c);
}

}  // namespace tessera::ops::reference
