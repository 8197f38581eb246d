// The activation family on tile-cuda against the reference.
#include "common/test_util.h"
#include "ops/activation_cases.h"

namespace tessera::testing {
class ActivationGpu : public ::testing::Test {
 protected:
  void SetUp() override { TESSERA_REQUIRE_GPU(); }
};
TESSERA_ACTIVATION_TESTS(ActivationGpu, Device::cuda(), dispatch::Backend::tile_cuda)
}  // namespace tessera::testing
