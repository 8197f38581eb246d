// Building blocks of the ops' self-checks: random tensors and a comparison against the reference.
#pragma once
#include <cmath>
#include <random>

#include "ops/common/views.h"
#include "tessera/ops/selfcheck.h"

namespace tessera::ops::selfcheck {

inline Tensor random(std::mt19937_64& gen, const Shape& shape, DType dtype, Device device, float lo = -1.f, float hi = 1.f) {
  Tensor t = Tensor::empty(shape, dtype, device);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(size_t(t.numel()));
  for (auto& x : v) x = dist(gen);
  write_float_vector(t, v);
  return t;
}

inline Tensor poisoned(const Shape& shape, DType dtype, Device device) {
  Tensor t = Tensor::empty(shape, dtype, device);
  std::vector<uint8_t> bytes(t.nbytes(), 0xff);
  copy_bytes(t.data(), device, bytes.data(), Device::cpu(), bytes.size());
  return t;
}

// Relative and absolute tolerance for outputs in `dtype` (fp32 accumulation).
inline double tolerance(DType dtype) { return dtype == DType::f32 ? 1e-4 : dtype == DType::f16 ? 4e-3 : 2e-2; }

// Compares got with want elementwise: |g - w| <= tol * (1 + |w|); NaN (an unwritten element) fails.
inline SelfCheckResult compare(const Tensor& got, const Tensor& want, double tol) {
  const auto g = to_float_vector(got), w = to_float_vector(want);
  SelfCheckResult r;
  r.tolerance = tol;
  r.passed = g.size() == w.size();
  r.shape = got.str();
  for (size_t i = 0; i < g.size() && i < w.size(); ++i) {
    const double d = std::fabs(double(g[i]) - w[i]);
    if (std::isnan(d)) { r.passed = false; r.max_abs_error = INFINITY; continue; }
    r.max_abs_error = std::max(r.max_abs_error, d);
    if (d > tol * (1 + std::fabs(w[i]))) r.passed = false;
  }
  return r;
}

}  // namespace tessera::ops::selfcheck
