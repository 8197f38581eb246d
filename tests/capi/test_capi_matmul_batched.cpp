// The C API of bmm, group_gemm and matmul_fp8: results agree with the C++ API; bad arguments are a status and a message.
#include <gtest/gtest.h>

#include <string>

#include "common/test_util.h"
#include "tessera.h"
#include "tessera/ops/matmul.h"

namespace tessera::testing {
namespace {

struct CTensor {
  Tensor t;
  std::vector<int64_t> shape;
  tessera_tensor c{};
  explicit CTensor(Tensor tensor) : t(std::move(tensor)), shape(t.shape()) {
    c.data = t.data();
    c.dtype = int32_t(t.dtype());
    c.device = TESSERA_CPU;
    c.ndim = t.ndim();
    c.shape = shape.data();
    c.strides = nullptr;
  }
};

TEST(CApiMatmulBatched, BmmMatchesCppApi) {
  CTensor a(random_tensor({3, 5, 17}, DType::bf16)), b(random_tensor({3, 17, 9}, DType::bf16)),
      bias(random_tensor({9}, DType::bf16)), c(poisoned({3, 5, 9}, DType::bf16));
  ASSERT_EQ(tessera_bmm(&a.c, &b.c, &c.c, 1, &bias.c, 3, 0.5f, nullptr, nullptr), TESSERA_OK) << tessera_last_error();
  Tensor want = poisoned({3, 5, 9}, DType::bf16);
  ops::bmm(a.t, b.t, want, ops::BLayout::kn, {bias.t, ops::Activation::silu, 0.5f, {}});
  EXPECT_TRUE(all_equal(c.t, want));
  EXPECT_EQ(tessera_bmm(&a.c, &b.c, &c.c, 2, nullptr, 0, 1.f, nullptr, nullptr), TESSERA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessera_last_error()).find("b_layout"), std::string::npos) << tessera_last_error();
}

TEST(CApiMatmulBatched, GroupGemmMatchesCppApi) {
  Tensor offsets = Tensor::empty({3}, DType::i64);
  offsets.data_as<int64_t>()[0] = 0;
  offsets.data_as<int64_t>()[1] = 4;
  offsets.data_as<int64_t>()[2] = 11;
  CTensor a(random_tensor({11, 13}, DType::f16)), b(random_tensor({2, 6, 13}, DType::f16)), o(offsets),
      c(poisoned({11, 6}, DType::f32));
  ASSERT_EQ(tessera_group_gemm(&a.c, &b.c, &o.c, &c.c, nullptr), TESSERA_OK) << tessera_last_error();
  Tensor want = poisoned({11, 6}, DType::f32);
  ops::group_gemm(a.t, b.t, o.t, want);
  EXPECT_TRUE(all_equal(c.t, want));
  EXPECT_EQ(tessera_group_gemm(&a.c, &b.c, nullptr, &c.c, nullptr), TESSERA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessera_last_error()).find("offsets"), std::string::npos) << tessera_last_error();
}

TEST(CApiMatmulBatched, MatmulFp8MatchesCppApi) {
  CTensor a(random_tensor({2, 3, 32}, DType::fp8_e4m3)), b(random_tensor({7, 32}, DType::fp8_e4m3)),
      c(poisoned({2, 3, 7}, DType::bf16));
  ASSERT_EQ(tessera_matmul_fp8(&a.c, &b.c, &c.c, 0.5f, 2.5f, nullptr), TESSERA_OK) << tessera_last_error();
  Tensor want = poisoned({2, 3, 7}, DType::bf16);
  ops::matmul_fp8(a.t, b.t, want, 0.5f, 2.5f);
  EXPECT_TRUE(all_equal(c.t, want));
  CTensor c_f32(poisoned({2, 3, 7}, DType::f32));
  EXPECT_EQ(tessera_matmul_fp8(&a.c, &c_f32.c, &c_f32.c, 1.f, 1.f, nullptr), TESSERA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessera_last_error()).find("b is"), std::string::npos) << tessera_last_error();
}

}  // namespace
}  // namespace tessera::testing
