// The elementwise family on tile-cuda against the reference.
#include <cmath>
#include <vector>

#include "common/test_util.h"
#include "ops/elementwise_cases.h"

namespace tessera::testing {
class ElementwiseGpu : public ::testing::Test {
 protected:
  void SetUp() override { TESSERA_REQUIRE_GPU(); }
};
TESSERA_ELEMENTWISE_TESTS(ElementwiseGpu, Device::cuda(), dispatch::Backend::tile_cuda)
}  // namespace tessera::testing

namespace tessera::testing {
// Kernels start while their predecessor in the stream finishes (programmatic dependent launch, tile/cuda/
// launch.h) and must wait for its results before reading: a long chain of launches, each reading what the one
// before wrote, on a tensor large enough that a kernel's tail is wide.
TEST_F(ElementwiseGpu, ChainOfDependentLaunchesSeesEachResult) {
  const Shape shape{4096, 1031};
  std::vector<float> values = floats(random_tensor(shape, DType::f32, Device::cpu(), -8.f, 8.f));
  for (float& v : values) v = std::round(v);  // integers: every sum below is exact
  const Tensor x = from_floats(values, shape, DType::f32, Device::cuda());
  const Tensor y = poisoned(shape, DType::f32, Device::cuda());
  const Tensor t = poisoned({1031, 4096}, DType::f32, Device::cuda());
  ops::cast(x, y);
  constexpr int kSteps = 100;
  for (int i = 0; i < kSteps; ++i) {
    ops::add(y, x, y);   // y = (i + 2) x
    ops::transpose(y, t);
    ops::transpose(t, y);  // y back through a second tensor: each kernel reads its predecessor's output
  }
  const std::vector<float> xs = floats(x), ys = floats(y);
  int64_t wrong = 0;
  for (size_t i = 0; i < xs.size(); ++i) wrong += ys[i] != float(kSteps + 1) * xs[i];
  EXPECT_EQ(wrong, 0);
}
}  // namespace tessera::testing
