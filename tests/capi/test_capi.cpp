// The C API: success paths agree with the C++ API; every kind of bad argument is a status and a message.
#include <gtest/gtest.h>

#include <string>

#include "common/test_util.h"
#include "tessera.h"
#include "tessera/ops/norm.h"
#include "tessera/ops/sampling.h"

namespace tessera::testing {
namespace {

struct CTensor {
  Tensor t;
  std::vector<int64_t> shape;
  tessera_tensor c{};
  explicit CTensor(Tensor tensor) : t(std::move(tensor)), shape(t.shape()) {
    c.data = t.data();
    c.dtype = int32_t(t.dtype());
    c.device = t.device().is_cpu() ? TESSERA_CPU : TESSERA_CUDA;
    c.ndim = t.ndim();
    c.shape = shape.data();
    c.strides = nullptr;
  }
};

TEST(CApi, RmsNormMatchesCppApi) {
  CTensor x(random_tensor({7, 33}, DType::bf16)), w(random_tensor({33}, DType::bf16)), y(poisoned({7, 33}, DType::bf16));
  ASSERT_EQ(tessera_rms_norm(&x.c, &w.c, &y.c, 1e-6f, nullptr), TESSERA_OK) << tessera_last_error();
  Tensor want = poisoned({7, 33}, DType::bf16);
  ops::rms_norm(x.t, w.t, want, 1e-6f);
  EXPECT_TRUE(all_equal(y.t, want));
}

TEST(CApi, ArgmaxMatchesCppApi) {
  CTensor x(random_tensor({5, 1001}, DType::f32)), out(poisoned({5}, DType::i32));
  ASSERT_EQ(tessera_argmax(&x.c, &out.c, nullptr), TESSERA_OK) << tessera_last_error();
  Tensor want = poisoned({5}, DType::i32);
  ops::argmax(x.t, want, {dispatch::Backend::reference});
  EXPECT_TRUE(all_equal(out.t, want));
  CTensor wrong(poisoned({4}, DType::i32));
  EXPECT_EQ(tessera_argmax(&x.c, &wrong.c, nullptr), TESSERA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessera_last_error()).find("out"), std::string::npos) << tessera_last_error();
}

TEST(CApi, ExplicitBackendAndStrides) {
  CTensor x(random_tensor({4, 16}, DType::f32)), w(random_tensor({16}, DType::f32)), y(poisoned({4, 16}, DType::f32));
  const int64_t strides[] = {16, 1};
  x.c.strides = strides;
  tessera_options o{TESSERA_BACKEND_REFERENCE, nullptr};
  ASSERT_EQ(tessera_rms_norm(&x.c, &w.c, &y.c, 1e-6f, &o), TESSERA_OK) << tessera_last_error();
  for (float v : floats(y.t)) EXPECT_FALSE(std::isnan(v));
}

TEST(CApi, BadArgumentsAreReported) {
  CTensor x(random_tensor({4, 16}, DType::f32)), w(random_tensor({16}, DType::f32)), y(poisoned({4, 16}, DType::f32));
  auto expect = [](tessera_status s, int want, const char* needle) {
    EXPECT_EQ(s, want);
    EXPECT_NE(std::string(tessera_last_error()).find(needle), std::string::npos) << tessera_last_error();
  };
  expect(tessera_rms_norm(nullptr, &w.c, &y.c, 1e-6f, nullptr), TESSERA_INVALID_ARGUMENT, "x is NULL");
  tessera_tensor bad = x.c;
  bad.dtype = 99;
  expect(tessera_rms_norm(&bad, &w.c, &y.c, 1e-6f, nullptr), TESSERA_INVALID_ARGUMENT, "invalid dtype");
  bad = x.c;
  bad.device = -3;
  expect(tessera_rms_norm(&bad, &w.c, &y.c, 1e-6f, nullptr), TESSERA_INVALID_ARGUMENT, "invalid device");
  bad = x.c;
  bad.ndim = 42;
  expect(tessera_rms_norm(&bad, &w.c, &y.c, 1e-6f, nullptr), TESSERA_INVALID_ARGUMENT, "ndim");
  bad = x.c;
  bad.data = nullptr;
  expect(tessera_rms_norm(&bad, &w.c, &y.c, 1e-6f, nullptr), TESSERA_INVALID_ARGUMENT, "NULL data");
  const int64_t neg[] = {4, -16};
  bad = x.c;
  bad.shape = neg;
  expect(tessera_rms_norm(&bad, &w.c, &y.c, 1e-6f, nullptr), TESSERA_INVALID_ARGUMENT, "negative");
  tessera_options o{77, nullptr};
  expect(tessera_rms_norm(&x.c, &w.c, &y.c, 1e-6f, &o), TESSERA_INVALID_ARGUMENT, "backend");
  expect(tessera_gelu(&x.c, &y.c, 5, nullptr), TESSERA_INVALID_ARGUMENT, "approx");
  expect(tessera_rope(&x.c, &x.c, &x.c, &y.c, -1, 0, nullptr), TESSERA_INVALID_ARGUMENT, "layout");
  expect(tessera_set_backend("gpu-please"), TESSERA_INVALID_ARGUMENT, "not a backend");
  for (float v : floats(y.t)) ASSERT_TRUE(std::isnan(v));  // nothing written
}

TEST(CApi, SetBackendRoundTrip) {
  ASSERT_EQ(tessera_set_backend("reference"), TESSERA_OK);
  EXPECT_EQ(dispatch::global_backend(), dispatch::Backend::reference);
  ASSERT_EQ(tessera_set_backend(nullptr), TESSERA_OK);
  EXPECT_FALSE(dispatch::global_backend().has_value());
  EXPECT_STREQ(tessera_version(), "0.1.0");
}

}  // namespace
}  // namespace tessera::testing
