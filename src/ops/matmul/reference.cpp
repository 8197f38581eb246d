// Plain C++ reference of matmul, accumulating in double.
#include <cmath>

#include "ops/common/views.h"
#include "ops/matmul/args.h"

namespace tessera::ops::reference {

void matmul(const MatmulArgs& args, const dispatch::Options&) {
  const int64_t k = args.a.size(-1), m = args.a.numel() / std::max<int64_t>(k, 1);
  const int64_t n = args.c.size(-1);
  const auto a = to_float_vector(args.a), b = to_float_vector(args.b);
  const auto& e = args.epilogue;
  const auto bias = e.bias.data() ? to_float_vector(e.bias) : std::vector<float>(size_t(n), 0.f);
  const auto residual = e.residual.data() ? to_float_vector(e.residual) : std::vector<float>();
  std::vector<float> c(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        s += double(a[i * k + kk]) * (args.b_layout == BLayout::nk ? b[j * k + kk] : b[kk * n + j]);
      double x = s + bias[j];
      switch (e.activation) {
        case Activation::gelu: x = 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); break;
        case Activation::gelu_tanh: x = 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))); break;
        case Activation::silu: x = x / (1 + std::exp(-x)); break;
        case Activation::relu: x = x > 0 ? x : 0; break;
        case Activation::none: break;
      }
      x *= e.alpha;
      if (!residual.empty()) x += residual[i * n + j];
      c[i * n + j] = float(x);
    }
  write_float_vector(args.c, c);
}

// c = silu(a @ Wg^T) * (a @ Wu^T), both products in double and nothing rounded in between.
void matmul_silu_and_mul(const MatmulSiluAndMulArgs& args, const dispatch::Options&) {
  const int64_t k = args.a.size(-1), m = args.a.numel() / std::max<int64_t>(k, 1);
  const int64_t n = args.c.size(-1);
  const auto a = to_float_vector(args.a), w = to_float_vector(args.w);
  std::vector<float> c(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double gate = 0, up = 0;
      for (int64_t kk = 0; kk < k; ++kk) {
        gate += double(a[i * k + kk]) * w[j * k + kk];
        up += double(a[i * k + kk]) * w[(n + j) * k + kk];
      }
      c[i * n + j] = float(gate / (1.0 + std::exp(-gate)) * up);
    }
  write_float_vector(args.c, c);
}

}  // namespace tessera::ops::reference
