// The sampling family on tile-cuda against the reference and hand-built rows.
#include "common/test_util.h"
#include "ops/sampling_cases.h"

namespace tessera::testing {
class SamplingGpu : public ::testing::Test {
 protected:
  void SetUp() override { TESSERA_REQUIRE_GPU(); }
};
TESSERA_SAMPLING_TESTS(SamplingGpu, Device::cuda(), dispatch::Backend::tile_cuda)
}  // namespace tessera::testing
