// Helpers shared by the tests: random tensors, poisoned outputs, tolerances by dtype, comparisons.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "tessera/dispatch/autotune.h"
#include "tessera/runtime/error.h"
#include "tessera/runtime/tensor.h"

namespace tessera::testing {

// A generator seeded freshly for every test (TESSERA_TEST_SEED fixes it); the seed is printed on failure.
std::mt19937_64& rng();
uint64_t seed();

// Uniform values in [lo, hi), rounded to the dtype.
Tensor random_tensor(const Shape& shape, DType dtype, Device device = Device::cpu(), float lo = -1.f, float hi = 1.f);
Tensor random_ints(const Shape& shape, DType dtype, int64_t lo, int64_t hi, Device device = Device::cpu());
// Fills with a NaN pattern (0xff bytes), so an element a kernel fails to write is found.
Tensor poisoned(const Shape& shape, DType dtype, Device device = Device::cpu());
void poison(const Tensor& t);
Tensor from_floats(const std::vector<float>& values, const Shape& shape, DType dtype, Device device = Device::cpu());
std::vector<float> floats(const Tensor& t);

// Tolerance for a result in `dtype` computed with fp32 accumulation.
struct Tolerance { double abs, rel; };
Tolerance tolerance_for(DType dtype);

// Checks |got - want| <= abs + rel * |want| elementwise, no NaN unless both are NaN; reports the worst.
::testing::AssertionResult all_close(const std::vector<float>& got, const std::vector<float>& want, Tolerance tol);
::testing::AssertionResult all_close(const Tensor& got, const Tensor& want, Tolerance tol);
// Bit-identical tensors (any dtype).
::testing::AssertionResult all_equal(const Tensor& got, const Tensor& want);
double max_abs_error(const std::vector<float>& got, const std::vector<float>& want);

// Runs f, which must throw an invalid_argument Error whose message holds every one of the needles (the tensor,
// shape or value at fault).
template <class F>
void expect_invalid_argument(F&& f, std::initializer_list<std::string> needles) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning " << *needles.begin();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::invalid_argument) << e.what();
    for (const auto& n : needles) EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << "missing '" << n << "' in: " << e.what();
  }
}
template <class F>
void expect_invalid_argument(F&& f, const std::string& needle) {
  expect_invalid_argument(f, {needle});
}

// Skips the current test with "skipped: no GPU" when no CUDA device can be used.
#define TESSERA_REQUIRE_GPU()                                                  \
  do {                                                                         \
    if (!::tessera::cuda_available()) GTEST_SKIP() << "skipped: no GPU";       \
  } while (0)

// Skips a test of Hopper-only kernel configurations where the GPU does not run them (before sm_90, or with
// TESSERA_HOPPER=0, which dispatches the generic kernels on a Hopper GPU too).
#define TESSERA_REQUIRE_HOPPER_KERNELS()                                                               \
  do {                                                                                                 \
    TESSERA_REQUIRE_GPU();                                                                             \
    if (!::tessera::cuda_hopper_kernels()) GTEST_SKIP() << "skipped: this GPU runs no Hopper kernels"; \
  } while (0)

using dispatch::autotune::ClearForcedChoice;

inline const DType kFloatDTypes[] = {DType::f32, DType::f16, DType::bf16};

}  // namespace tessera::testing
