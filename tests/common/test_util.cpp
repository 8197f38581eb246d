#include "common/test_util.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "ops/common/views.h"

namespace tessera::testing {

namespace {
uint64_t initial_seed() {
  if (const char* env = std::getenv("TESSERA_TEST_SEED")) return std::strtoull(env, nullptr, 10);
  return std::random_device{}() ^ (uint64_t(std::random_device{}()) << 32);
}

class SeedPrinter : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo&) override { rng().seed(seed()); }
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed()) std::fprintf(stderr, "  (reproduce with TESSERA_TEST_SEED=%llu)\n", (unsigned long long)seed());
  }
};

const bool registered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new SeedPrinter);
  return true;
}();
}  // namespace

uint64_t seed() {
  static const uint64_t s = initial_seed();
  return s;
}

std::mt19937_64& rng() {
  static std::mt19937_64 gen(seed());
  return gen;
}

Tensor from_floats(const std::vector<float>& values, const Shape& shape, DType dtype, Device device) {
  Tensor t = Tensor::empty(shape, dtype, device);
  ops::write_float_vector(t, values);
  return t;
}

std::vector<float> floats(const Tensor& t) { return ops::to_float_vector(t); }

Tensor random_tensor(const Shape& shape, DType dtype, Device device, float lo, float hi) {
  Tensor probe = Tensor::empty(shape, DType::f32);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(size_t(probe.numel()));
  for (auto& x : v) x = dist(rng());
  return from_floats(v, shape, dtype, device);
}

Tensor random_ints(const Shape& shape, DType dtype, int64_t lo, int64_t hi, Device device) {
  Tensor t = Tensor::empty(shape, dtype, Device::cpu());
  std::uniform_int_distribution<int64_t> dist(lo, hi - 1);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int64_t v = dist(rng());
    if (dtype == DType::i64) t.data_as<int64_t>()[i] = v;
    else if (dtype == DType::i32) t.data_as<int32_t>()[i] = int32_t(v);
    else ADD_FAILURE() << "random_ints: integer dtypes only";
  }
  return device.is_cpu() ? t : t.to(device);
}

void poison(const Tensor& t) {
  std::vector<uint8_t> bytes(t.nbytes(), 0xff);
  copy_bytes(t.data(), t.device(), bytes.data(), Device::cpu(), bytes.size());
}

Tensor poisoned(const Shape& shape, DType dtype, Device device) {
  Tensor t = Tensor::empty(shape, dtype, device);
  poison(t);
  return t;
}

Tolerance tolerance_for(DType dtype) {
  switch (dtype) {
    case DType::f32: return {1e-5, 1e-4};
    case DType::f16: return {2e-3, 2e-3};
    case DType::bf16: return {1.6e-2, 1.6e-2};
    default: return {0, 0};
  }
}

double max_abs_error(const std::vector<float>& got, const std::vector<float>& want) {
  double worst = 0;
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    const double d = std::fabs(double(got[i]) - want[i]);
    if (std::isnan(d)) return INFINITY;
    worst = std::max(worst, d);
  }
  return worst;
}

::testing::AssertionResult all_close(const std::vector<float>& got, const std::vector<float>& want, Tolerance tol) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "sizes differ: " << got.size() << " vs " << want.size();
  size_t bad = 0, first = 0;
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    const bool both_nan = std::isnan(g) && std::isnan(w);
    const bool ok = both_nan || (std::isinf(w) && g == w) || std::fabs(g - w) <= tol.abs + tol.rel * std::fabs(w);
    if (!ok) {
      if (!bad++) first = i;
      if (!std::isnan(g)) worst = std::max(worst, std::fabs(g - w));
      else worst = INFINITY;
    }
  }
  if (!bad) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << got.size() << " elements differ; first at " << first
                                       << ": got " << got[first] << ", want " << want[first] << "; worst |diff| "
                                       << worst << " (abs " << tol.abs << ", rel " << tol.rel << ")";
}

::testing::AssertionResult all_close(const Tensor& got, const Tensor& want, Tolerance tol) {
  if (got.shape() != want.shape())
    return ::testing::AssertionFailure() << "shapes differ: " << got.str() << " vs " << want.str();
  return all_close(floats(got), floats(want), tol);
}

::testing::AssertionResult all_equal(const Tensor& got, const Tensor& want) {
  if (got.shape() != want.shape() || got.dtype() != want.dtype())
    return ::testing::AssertionFailure() << got.str() << " vs " << want.str();
  Tensor g = got.device().is_cpu() ? got : got.to(Device::cpu());
  Tensor w = want.device().is_cpu() ? want : want.to(Device::cpu());
  if (std::memcmp(g.data(), w.data(), g.nbytes()) != 0) return ::testing::AssertionFailure() << "bytes differ";
  return ::testing::AssertionSuccess();
}

}  // namespace tessera::testing
