// The tile library's launcher on the GPU: shared-memory allowances.
#include <gtest/gtest.h>

#include <vector>

#include "common/test_util.h"
#include "tessera/runtime/tensor.h"

#if TESSERA_WITH_CUDA
namespace tessera::launch_tests {
void launch_static_beside_dynamic(float* out);
int static_beside_dynamic_threads();
float static_beside_dynamic_expected(int t);

namespace {
using namespace tessera::testing;

// 16 KB of static shared memory beside 40 KB of dynamic: 56 KB in all, which a kernel gets only when the launch
// raises its dynamic allowance (cudaFuncAttributeMaxDynamicSharedMemorySize). It once did that only for more
// than 48 KB of dynamic memory alone, and this launch failed with "invalid argument".
TEST(LaunchGpu, StaticSharedMemoryBesideDynamicPast48KB) {
  TESSERA_REQUIRE_GPU();
  const int threads = static_beside_dynamic_threads();
  Tensor out = poisoned({threads}, DType::f32, Device::cuda());
  launch_static_beside_dynamic(static_cast<float*>(out.data()));
  const std::vector<float> got = floats(out.to(Device::cpu()));
  for (int t = 0; t < threads; ++t) EXPECT_EQ(got[size_t(t)], static_beside_dynamic_expected(t)) << "thread " << t;
}
}  // namespace
}  // namespace tessera::launch_tests
#endif  // TESSERA_WITH_CUDA
