// tessera_fmha, tessera_fmha_backward, tessera_fmha_decode and tessera_mla_decode agree with the C++ API; bad flags are reported.
#include <gtest/gtest.h>

#include <string>

#include "common/test_util.h"
#include "tessera.h"
#include "tessera/ops/attention.h"

namespace tessera::testing {
namespace {

struct CView {
  Tensor t;
  std::vector<int64_t> shape;
  tessera_tensor c{};
  explicit CView(Tensor tensor) : t(std::move(tensor)), shape(t.shape()) {
    c.data = t.data();
    c.dtype = int32_t(t.dtype());
    c.device = TESSERA_CPU;
    c.ndim = t.ndim();
    c.shape = shape.data();
  }
};

TEST(CApiAttention, FmhaMatchesCppApi) {
  CView q(random_tensor({2, 4, 9, 64}, DType::bf16)), k(random_tensor({2, 2, 13, 64}, DType::bf16));
  CView v(random_tensor({2, 2, 13, 64}, DType::bf16)), o(poisoned({2, 4, 9, 64}, DType::bf16));
  CView lse(poisoned({2, 4, 9}, DType::f32));
  ASSERT_EQ(tessera_fmha(&q.c, &k.c, &v.c, &o.c, &lse.c, 0.f, 1, 5, 20.f, nullptr), TESSERA_OK) << tessera_last_error();
  Tensor want = poisoned({2, 4, 9, 64}, DType::bf16), want_lse = poisoned({2, 4, 9}, DType::f32);
  ops::fmha(q.t, k.t, v.t, want, want_lse, {0.f, true, 5, 20.f});
  EXPECT_TRUE(all_equal(o.t, want));
  EXPECT_TRUE(all_equal(lse.t, want_lse));
  ASSERT_EQ(tessera_fmha(&q.c, &k.c, &v.c, &o.c, nullptr, 0.f, 0, -1, 0.f, nullptr), TESSERA_OK) << tessera_last_error();
  EXPECT_EQ(tessera_fmha(&q.c, &k.c, &v.c, &o.c, nullptr, 0.f, 2, -1, 0.f, nullptr), TESSERA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessera_last_error()).find("causal"), std::string::npos) << tessera_last_error();
}

TEST(CApiAttention, FmhaFp8MatchesCppApi) {
  CView q(random_tensor({1, 4, 9, 64}, DType::fp8_e4m3, Device::cpu(), -4, 4));
  CView k(random_tensor({1, 2, 13, 64}, DType::fp8_e4m3, Device::cpu(), -4, 4));
  CView v(random_tensor({1, 2, 13, 64}, DType::fp8_e4m3, Device::cpu(), -4, 4));
  CView o(poisoned({1, 4, 9, 64}, DType::f16)), lse(poisoned({1, 4, 9}, DType::f32));
  ASSERT_EQ(tessera_fmha_fp8(&q.c, &k.c, &v.c, &o.c, &lse.c, 0.5f, 0.25f, 0.125f, 0.f, 1, -1, 0.f, nullptr), TESSERA_OK)
      << tessera_last_error();
  Tensor want = poisoned({1, 4, 9, 64}, DType::f16), want_lse = poisoned({1, 4, 9}, DType::f32);
  ops::fmha_fp8(q.t, k.t, v.t, want, 0.5f, 0.25f, 0.125f, want_lse, {0.f, true, -1, 0.f});
  EXPECT_TRUE(all_equal(o.t, want));
  EXPECT_TRUE(all_equal(lse.t, want_lse));
  EXPECT_EQ(tessera_fmha_fp8(&q.c, &k.c, &v.c, &o.c, nullptr, 1.f, 1.f, 1.f, 0.f, 3, -1, 0.f, nullptr), TESSERA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessera_last_error()).find("causal"), std::string::npos) << tessera_last_error();
  // 16-bit inputs are refused by name.
  CView q16(random_tensor({1, 4, 9, 64}, DType::bf16)), o16(poisoned({1, 4, 9, 64}, DType::bf16));
  EXPECT_EQ(tessera_fmha_fp8(&q16.c, &k.c, &v.c, &o16.c, nullptr, 1.f, 1.f, 1.f, 0.f, 0, -1, 0.f, nullptr),
            TESSERA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessera_last_error()).find("q is bf16"), std::string::npos) << tessera_last_error();
}

TEST(CApiAttention, FmhaBackwardMatchesCppApi) {
  CView q(random_tensor({1, 4, 9, 64}, DType::bf16)), k(random_tensor({1, 2, 13, 64}, DType::bf16));
  CView v(random_tensor({1, 2, 13, 64}, DType::bf16)), o(poisoned({1, 4, 9, 64}, DType::bf16));
  CView lse(poisoned({1, 4, 9}, DType::f32)), d_o(random_tensor({1, 4, 9, 64}, DType::bf16));
  ops::fmha(q.t, k.t, v.t, o.t, lse.t, {0.f, true, -1, 0.f});
  CView dq(poisoned(q.shape, DType::bf16)), dk(poisoned(k.shape, DType::bf16)), dv(poisoned(v.shape, DType::bf16));
  ASSERT_EQ(tessera_fmha_backward(&q.c, &k.c, &v.c, &o.c, &d_o.c, &lse.c, &dq.c, &dk.c, &dv.c, 0.f, 1, -1, 0.f, nullptr),
            TESSERA_OK)
      << tessera_last_error();
  Tensor want_dq = poisoned(q.shape, DType::bf16), want_dk = poisoned(k.shape, DType::bf16), want_dv = poisoned(v.shape, DType::bf16);
  ops::fmha_backward(q.t, k.t, v.t, o.t, d_o.t, lse.t, want_dq, want_dk, want_dv, {0.f, true, -1, 0.f});
  EXPECT_TRUE(all_equal(dq.t, want_dq));
  EXPECT_TRUE(all_equal(dk.t, want_dk));
  EXPECT_TRUE(all_equal(dv.t, want_dv));
  EXPECT_EQ(tessera_fmha_backward(&q.c, &k.c, &v.c, &o.c, &d_o.c, nullptr, &dq.c, &dk.c, &dv.c, 0.f, 1, -1, 0.f, nullptr),
            TESSERA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessera_last_error()).find("lse is NULL"), std::string::npos) << tessera_last_error();
}

TEST(CApiAttention, FmhaDecodeMatchesCppApi) {
  CView q(random_tensor({2, 1, 8, 64}, DType::f16)), kp(random_tensor({6, 16, 2, 64}, DType::f16));
  CView vp(random_tensor({6, 16, 2, 64}, DType::f16)), o(poisoned({2, 1, 8, 64}, DType::f16));
  CView table(from_floats({0, 1, 2, 3, 4, 5}, {2, 3}, DType::i32)), lens(from_floats({40, 7}, {2}, DType::i32));
  ASSERT_EQ(tessera_fmha_decode(&q.c, &kp.c, &vp.c, &table.c, &lens.c, &o.c, 0.f, -1, 0.f, nullptr), TESSERA_OK)
      << tessera_last_error();
  Tensor want = poisoned({2, 1, 8, 64}, DType::f16);
  ops::fmha_decode(q.t, {kp.t, vp.t, table.t}, lens.t, want);
  EXPECT_TRUE(all_equal(o.t, want));
  EXPECT_EQ(tessera_fmha_decode(&q.c, &kp.c, &vp.c, &table.c, nullptr, &o.c, 0.f, -1, 0.f, nullptr), TESSERA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessera_last_error()).find("seq_lens is NULL"), std::string::npos) << tessera_last_error();
}

TEST(CApiAttention, MlaDecodeMatchesCppApi) {
  CView q(random_tensor({2, 1, 16, 576}, DType::bf16)), latent(random_tensor({6, 16, 576}, DType::bf16));
  CView o(poisoned({2, 1, 16, 512}, DType::bf16));
  CView table(from_floats({0, 1, 2, 3, 4, 5}, {2, 3}, DType::i32)), lens(from_floats({40, 7}, {2}, DType::i32));
  ASSERT_EQ(tessera_mla_decode(&q.c, &latent.c, &table.c, &lens.c, &o.c, 0.f, -1, 0.f, nullptr), TESSERA_OK)
      << tessera_last_error();
  Tensor want = poisoned({2, 1, 16, 512}, DType::bf16);
  ops::mla_decode(q.t, latent.t, table.t, lens.t, want);
  EXPECT_TRUE(all_equal(o.t, want));
  EXPECT_EQ(tessera_mla_decode(&q.c, &latent.c, &table.c, &lens.c, nullptr, 0.f, -1, 0.f, nullptr), TESSERA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tessera_last_error()).find("o is NULL"), std::string::npos) << tessera_last_error();
}

}  // namespace
}  // namespace tessera::testing
