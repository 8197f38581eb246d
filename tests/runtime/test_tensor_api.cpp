// Tensor and dtype basics: allocation, borrowed views, strides, contiguity, reshape, copies, and that every
// error names the tensor at fault.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "tessera/runtime/error.h"
#include "tessera/runtime/tensor.h"

namespace tessera {
namespace {

// Runs f, expects a tessera::Error with `status` whose message contains every one of `parts`.
template <class F>
::testing::AssertionResult throws_naming(F&& f, Status status, std::initializer_list<std::string> parts) {
  try {
    f();
  } catch (const Error& e) {
    if (e.status() != status) return ::testing::AssertionFailure() << "status " << int(e.status()) << ": " << e.what();
    for (const auto& p : parts)
      if (std::string(e.what()).find(p) == std::string::npos)
        return ::testing::AssertionFailure() << "message \"" << e.what() << "\" does not mention \"" << p << "\"";
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "no error thrown";
}

TEST(DTypeApi, NamesSizesAndLookup) {
  struct Row { DType t; const char* name; size_t size; bool floating; };
  const Row rows[] = {{DType::f32, "f32", 4, true},           {DType::f16, "f16", 2, true},
                      {DType::bf16, "bf16", 2, true},         {DType::fp8_e4m3, "fp8_e4m3", 1, true},
                      {DType::fp8_e5m2, "fp8_e5m2", 1, true}, {DType::i32, "i32", 4, false},
                      {DType::i64, "i64", 8, false},          {DType::u8, "u8", 1, false},
                      {DType::boolean, "bool", 1, false}};
  ASSERT_EQ(std::size(rows), size_t(kNumDTypes));
  for (const Row& r : rows) {
    EXPECT_EQ(dtype_name(r.t), r.name);
    EXPECT_EQ(dtype_size(r.t), r.size) << r.name;
    EXPECT_EQ(is_floating(r.t), r.floating) << r.name;
    EXPECT_EQ(dtype_from_name(r.name), r.t) << r.name;
    EXPECT_TRUE(is_valid_dtype(int32_t(r.t)));
  }
  EXPECT_EQ(dtype_from_name("float32"), DType::f32);
  EXPECT_EQ(dtype_from_name("float16"), DType::f16);
  EXPECT_EQ(dtype_from_name("bfloat16"), DType::bf16);
  EXPECT_EQ(dtype_from_name("F32"), std::nullopt);
  EXPECT_EQ(dtype_from_name(""), std::nullopt);
  EXPECT_EQ(dtype_name(DType(42)), "invalid");
  EXPECT_FALSE(is_valid_dtype(-1));
  EXPECT_FALSE(is_valid_dtype(kNumDTypes));
  // The storage types' sizes agree with the dtypes.
  EXPECT_EQ(sizeof(bf16), dtype_size(dtype_v<bf16>));
  EXPECT_EQ(sizeof(f16), dtype_size(dtype_v<f16>));
  EXPECT_EQ(sizeof(fp8_e4m3), dtype_size(dtype_v<fp8_e4m3>));
  EXPECT_EQ(sizeof(fp8_e5m2), dtype_size(dtype_v<fp8_e5m2>));
}

TEST(TensorApi, EmptyIsContiguousAndOwned) {
  Tensor t = Tensor::empty({2, 3, 4}, DType::bf16);
  EXPECT_TRUE(t.defined());
  EXPECT_NE(t.data(), nullptr);
  EXPECT_EQ(t.ndim(), 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.nbytes(), 48u);
  EXPECT_EQ(t.strides(), (Shape{12, 4, 1}));
  EXPECT_EQ(t.size(-1), 4);
  EXPECT_EQ(t.size(0), 2);
  EXPECT_EQ(t.stride(-2), 4);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_TRUE(t.rows_contiguous());
  EXPECT_TRUE(t.device().is_cpu());
  EXPECT_EQ(t.str(), "bf16[2, 3, 4] on cpu");
  // Zero-size and rank-0 tensors.
  Tensor z = Tensor::empty({0, 5}, DType::f32);
  EXPECT_EQ(z.numel(), 0);
  EXPECT_EQ(z.nbytes(), 0u);
  EXPECT_TRUE(z.defined());
  EXPECT_TRUE(z.is_contiguous());
  Tensor s = Tensor::empty({}, DType::i64);
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(s.ndim(), 0);
  EXPECT_TRUE(s.is_contiguous());
  EXPECT_EQ(s.str(), "i64[] on cpu");
  // A copy shares the memory.
  Tensor copy = t;
  EXPECT_EQ(copy.data(), t.data());
  EXPECT_FALSE(Tensor().defined());
}

TEST(TensorApi, ViewsBorrowMemoryWithAnyStrides) {
  std::vector<float> buf(24);
  std::iota(buf.begin(), buf.end(), 0.f);
  Tensor v = Tensor::view(buf.data(), {4, 6}, DType::f32);
  EXPECT_EQ(v.strides(), (Shape{6, 1}));
  EXPECT_TRUE(v.is_contiguous());
  EXPECT_EQ(v.data_as<float>(), buf.data());
  // Every second column: neither contiguous nor rows-contiguous.
  Tensor cols = Tensor::view(buf.data(), {4, 3}, DType::f32, Device::cpu(), {6, 2});
  EXPECT_FALSE(cols.is_contiguous());
  EXPECT_FALSE(cols.rows_contiguous());
  EXPECT_EQ(cols.stride(1), 2);
  // Every second row: rows contiguous, the whole not.
  Tensor rows = Tensor::view(buf.data(), {2, 6}, DType::f32, Device::cpu(), {12, 1});
  EXPECT_FALSE(rows.is_contiguous());
  EXPECT_TRUE(rows.rows_contiguous());
  // Size-1 dims may have any stride and still be contiguous.
  Tensor one = Tensor::view(buf.data(), {1, 6}, DType::f32, Device::cpu(), {999, 1});
  EXPECT_TRUE(one.is_contiguous());
  // A single column is rows-contiguous whatever its stride.
  Tensor col = Tensor::view(buf.data(), {4, 1}, DType::f32, Device::cpu(), {6, 7});
  EXPECT_TRUE(col.rows_contiguous());
  // A null pointer is fine only for an empty view.
  EXPECT_NO_THROW(Tensor::view(nullptr, {0, 3}, DType::f32));
  EXPECT_TRUE(throws_naming([] { Tensor::view(nullptr, {2, 3}, DType::f16); }, Status::invalid_argument,
                            {"null", "f16[2, 3]"}));
  EXPECT_TRUE(throws_naming([&] { Tensor::view(buf.data(), {2, 3}, DType::f32, Device::cpu(), {1}); },
                            Status::invalid_argument, {"1 strides", "[2, 3]"}));
}

TEST(TensorApi, ErrorsNameTheTensor) {
  EXPECT_TRUE(throws_naming([] { Tensor::empty({2, -1}, DType::f32); }, Status::invalid_argument, {"negative", "[2, -1]"}));
  EXPECT_TRUE(throws_naming([] { Tensor::empty({2}, DType(99)); }, Status::invalid_argument, {"dtype"}));
  Tensor t = Tensor::empty({2, 3}, DType::f16);
  EXPECT_TRUE(throws_naming([&] { (void)t.size(2); }, Status::invalid_argument, {"dim 2", "f16[2, 3] on cpu"}));
  EXPECT_TRUE(throws_naming([&] { (void)t.size(-3); }, Status::invalid_argument, {"dim -3", "f16[2, 3]"}));
  EXPECT_TRUE(throws_naming([&] { (void)t.stride(5); }, Status::invalid_argument, {"dim 5", "f16[2, 3]"}));
  EXPECT_TRUE(throws_naming([&] { (void)t.reshape({4, 2}); }, Status::invalid_argument, {"reshape", "f16[2, 3]", "[4, 2]"}));
  Tensor other = Tensor::empty({3, 2}, DType::f16);
  EXPECT_TRUE(throws_naming([&] { t.copy_from(other); }, Status::invalid_argument, {"copy_from", "f16[3, 2]", "f16[2, 3]"}));
  Tensor wrong_dtype = Tensor::empty({2, 3}, DType::bf16);
  EXPECT_TRUE(throws_naming([&] { t.copy_from(wrong_dtype); }, Status::invalid_argument, {"bf16[2, 3]", "f16[2, 3]"}));
  std::vector<float> buf(12);
  Tensor strided = Tensor::view(buf.data(), {2, 3}, DType::f32, Device::cpu(), {6, 2});
  EXPECT_TRUE(throws_naming([&] { (void)strided.to(Device::cpu()); }, Status::invalid_argument, {"f32[2, 3]", "contiguous"}));
  EXPECT_TRUE(throws_naming([&] { (void)strided.reshape({6}); }, Status::invalid_argument, {"reshape", "f32[2, 3]"}));
  Tensor dst = Tensor::empty({2, 3}, DType::f32);
  EXPECT_TRUE(throws_naming([&] { dst.copy_from(strided); }, Status::invalid_argument, {"copy_from", "contiguous"}));
  if (!built_with_cuda()) {
    EXPECT_TRUE(throws_naming([] { Tensor::empty({2}, DType::f32, Device::cuda()); }, Status::unsupported, {"without CUDA"}));
  } else if (!cuda_available()) {
    EXPECT_TRUE(throws_naming([] { Tensor::empty({2}, DType::f32, Device::cuda()); }, Status::unsupported, {"no CUDA device"}));
  }
}

TEST(TensorApi, ReshapeSharesMemory) {
  Tensor t = Tensor::empty({2, 3, 4}, DType::f32);
  Tensor r = t.reshape({6, 4});
  EXPECT_EQ(r.data(), t.data());
  EXPECT_EQ(r.shape(), (Shape{6, 4}));
  EXPECT_EQ(r.strides(), (Shape{4, 1}));
  Tensor flat = t.reshape({24});
  EXPECT_EQ(flat.strides(), (Shape{1}));
  t.data_as<float>()[13] = 7.f;
  EXPECT_EQ(flat.data_as<float>()[13], 7.f);
  EXPECT_EQ(t.reshape({1, 24, 1}).numel(), 24);
  EXPECT_EQ(Tensor::empty({0, 3}, DType::f32).reshape({3, 0}).numel(), 0);
}

TEST(TensorApi, ToAndCopyFromCopyTheBytes) {
  std::vector<uint16_t> buf(12);
  for (int i = 0; i < 12; ++i) buf[i] = uint16_t(0x3c00 + i);
  Tensor v = Tensor::view(buf.data(), {3, 4}, DType::f16);
  Tensor c = v.to(Device::cpu());
  EXPECT_NE(c.data(), v.data());
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.shape(), v.shape());
  EXPECT_EQ(std::memcmp(c.data(), buf.data(), 24), 0);
  buf[0] = 0;  // the copy is independent
  EXPECT_EQ(c.data_as<uint16_t>()[0], 0x3c00);
  Tensor d = Tensor::empty({3, 4}, DType::f16);
  d.copy_from(c);
  EXPECT_EQ(std::memcmp(d.data(), c.data(), 24), 0);
  EXPECT_TRUE(testing::all_equal(d, c));
  // A contiguous view whose size-1 dim has an odd stride copies as well.
  Tensor one = Tensor::view(buf.data(), {1, 12}, DType::f16, Device::cpu(), {100, 1});
  Tensor e = Tensor::empty({1, 12}, DType::f16);
  EXPECT_NO_THROW(e.copy_from(one));
  EXPECT_EQ(std::memcmp(e.data(), buf.data(), 24), 0);
}

TEST(TensorApi, RoundTripThroughGpuWhenPresent) {
  TESSERA_REQUIRE_GPU();
  Tensor h = testing::random_tensor({5, 7}, DType::bf16);
  Tensor g = h.to(Device::cuda());
  EXPECT_TRUE(g.device().is_cuda());
  EXPECT_EQ(g.str(), "bf16[5, 7] on cuda:0");
  Tensor g2 = Tensor::empty({5, 7}, DType::bf16, Device::cuda());
  g2.copy_from(g);
  EXPECT_TRUE(testing::all_equal(g2.to(Device::cpu()), h));
}

}  // namespace
}  // namespace tessera
