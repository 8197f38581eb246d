// Tensor: allocation, views, strides, reshape, copies, and errors that name the tensor.
#include <gtest/gtest.h>

#include "tessera/runtime/tensor.h"

namespace tessera {
namespace {

TEST(Tensor, EmptyIsContiguousAndAligned) {
  Tensor t = Tensor::empty({2, 3, 5}, DType::bf16);
  EXPECT_EQ(t.numel(), 30);
  EXPECT_EQ(t.nbytes(), 60u);
  EXPECT_EQ(t.strides(), (Shape{15, 5, 1}));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % 64, 0u);
  EXPECT_EQ(t.size(-1), 5);
  EXPECT_EQ(t.str(), "bf16[2, 3, 5] on cpu");
}

TEST(Tensor, ViewsBorrowMemoryWithStrides) {
  float buf[12];
  for (int i = 0; i < 12; ++i) buf[i] = float(i);
  Tensor v = Tensor::view(buf, {3, 2}, DType::f32, Device::cpu(), {4, 2});
  EXPECT_FALSE(v.is_contiguous());
  EXPECT_TRUE(v.ndim() == 2 && v.stride(0) == 4 && v.stride(1) == 2);
  EXPECT_FALSE(v.rows_contiguous());
  Tensor rows = Tensor::view(buf, {3, 2}, DType::f32, Device::cpu(), {4, 1});
  EXPECT_TRUE(rows.rows_contiguous());
  EXPECT_EQ(rows.data(), static_cast<void*>(buf));
}

TEST(Tensor, ReshapeToAndCopy) {
  Tensor t = Tensor::empty({4, 6}, DType::f32);
  for (int i = 0; i < 24; ++i) t.data_as<float>()[i] = float(i);
  Tensor r = t.reshape({2, 12});
  EXPECT_EQ(r.data(), t.data());
  EXPECT_EQ(r.shape(), (Shape{2, 12}));
  Tensor c = t.to(Device::cpu());
  EXPECT_NE(c.data(), t.data());
  EXPECT_EQ(c.data_as<float>()[23], 23.f);
  Tensor d = Tensor::empty({4, 6}, DType::f32);
  d.copy_from(t);
  EXPECT_EQ(d.data_as<float>()[7], 7.f);
}

TEST(Tensor, ErrorsNameTheTensor) {
  Tensor t = Tensor::empty({4, 6}, DType::f16);
  try {
    t.reshape({5, 5});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("f16[4, 6]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Tensor::empty({2, -1}, DType::f32), Error);
  EXPECT_THROW(Tensor::view(nullptr, {2}, DType::f32), Error);
  EXPECT_THROW(t.size(2), Error);
  EXPECT_THROW(Tensor::empty({2}, DType(42)), Error);
  Tensor other = Tensor::empty({6, 4}, DType::f16);
  EXPECT_THROW(other.copy_from(t), Error);
}

TEST(Tensor, CudaWithoutAGpuIsAClearError) {
  if (cuda_available()) GTEST_SKIP() << "a GPU is present";
  try {
    Tensor::empty({2}, DType::f32, Device::cuda());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::unsupported);
    EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos) << e.what();
  }
}

TEST(Tensor, ZeroSizedTensors) {
  Tensor t = Tensor::empty({0, 5}, DType::f32);
  EXPECT_EQ(t.numel(), 0);
  Tensor v = Tensor::view(nullptr, {0, 3}, DType::f32);
  EXPECT_EQ(v.numel(), 0);
}

}  // namespace
}  // namespace tessera
