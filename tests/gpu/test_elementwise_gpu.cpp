// The elementwise family on tile-cuda against the reference.
#include "common/test_util.h"
#include "ops/elementwise_cases.h"

namespace tessera::testing {
class ElementwiseGpu : public ::testing::Test {
 protected:
  void SetUp() override { TESSERA_REQUIRE_GPU(); }
};
TESSERA_ELEMENTWISE_TESTS(ElementwiseGpu, Device::cuda(), dispatch::Backend::tile_cuda)
}  // namespace tessera::testing
