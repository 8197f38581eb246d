// The rope family on tile-cuda against the reference.
#include "common/test_util.h"
#include "ops/rope_cases.h"

namespace tessera::testing {
class RopeGpu : public ::testing::Test {
 protected:
  void SetUp() override { TESSERA_REQUIRE_GPU(); }
};
TEST_F(RopeGpu, MatchesReference) { check_rope_all_cases(Device::cuda(), dispatch::Backend::tile_cuda); }
TEST_F(RopeGpu, InPlaceAndStridedViews) { check_rope_views(Device::cuda(), dispatch::Backend::tile_cuda); }
TEST_F(RopeGpu, LargePositionsAndArbitraryFrequencies) {
  check_rope_large_positions(Device::cuda(), dispatch::Backend::tile_cuda);
}
TEST_F(RopeGpu, BadInputIsAnErrorAndWritesNothing) { check_rope_bad_input(Device::cuda(), dispatch::Backend::tile_cuda); }
}  // namespace tessera::testing
