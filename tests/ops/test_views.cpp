// ops::overlaps, which front-ends use to refuse an output written over an input (matmul's tuner to not re-run
// such a call): byte spans from first to last element, strides included.
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "ops/common/views.h"

namespace tessera::testing {
namespace {

TEST(Views, OverlapsComparesTheBytesFromFirstToLastElement) {
  const Tensor buffer = random_tensor({4, 10}, DType::f32);
  auto* base = static_cast<float*>(buffer.data());
  auto rows = [&](int64_t first, int64_t count) {
    return Tensor::view(base + first * 10, {count, 10}, DType::f32, Device::cpu(), {10, 1});
  };
  EXPECT_TRUE(ops::overlaps(buffer, buffer));
  EXPECT_TRUE(ops::overlaps(rows(0, 2), rows(1, 2)));
  EXPECT_FALSE(ops::overlaps(rows(0, 2), rows(2, 2))) << "adjacent rows share no byte";
  EXPECT_FALSE(ops::overlaps(rows(2, 2), rows(0, 2)));
  // Columns 0..3 of every row against columns 5..9: disjoint elements, but the spans interleave. The test is
  // a conservative one (what a kernel writing c may touch), so it says they overlap.
  const Tensor left = Tensor::view(base, {4, 4}, DType::f32, Device::cpu(), {10, 1});
  const Tensor right = Tensor::view(base + 5, {4, 5}, DType::f32, Device::cpu(), {10, 1});
  EXPECT_TRUE(ops::overlaps(left, right));
  // The last element's bytes count: a bf16 view ending one element before a second view does not overlap it.
  const Tensor halves = random_tensor({8}, DType::bf16);
  auto* h = static_cast<char*>(halves.data());
  EXPECT_FALSE(ops::overlaps(Tensor::view(h, {3}, DType::bf16), Tensor::view(h + 6, {5}, DType::bf16)));
  EXPECT_TRUE(ops::overlaps(Tensor::view(h, {4}, DType::bf16), Tensor::view(h + 6, {5}, DType::bf16)));
  // Absent or empty tensors overlap nothing.
  EXPECT_FALSE(ops::overlaps(Tensor{}, buffer));
  EXPECT_FALSE(ops::overlaps(buffer, Tensor::view(base, {0, 10}, DType::f32)));
}

}  // namespace
}  // namespace tessera::testing
