// The softmax family on tile-cuda against the reference.
#include "common/test_util.h"
#include "ops/softmax_cases.h"

namespace tessera::testing {
class SoftmaxGpu : public ::testing::Test {
 protected:
  void SetUp() override { TESSERA_REQUIRE_GPU(); }
};
TESSERA_SOFTMAX_TESTS(SoftmaxGpu, Device::cuda(), dispatch::Backend::tile_cuda)
}  // namespace tessera::testing
