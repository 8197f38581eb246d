// The norm family on tile-cuda against the reference.
#include "common/test_util.h"
#include "ops/norm_cases.h"

namespace tessera::testing {
class NormGpu : public ::testing::Test {
 protected:
  void SetUp() override { TESSERA_REQUIRE_GPU(); }
};
TEST_F(NormGpu, RmsNormMatchesReference) {
  for (DType dt : kFloatDTypes)
    for (const auto& s : kNormShapes) check_rms_norm(Device::cuda(), dispatch::Backend::tile_cuda, dt, s, false);
}
TEST_F(NormGpu, RmsNormResidualMatchesReference) {
  for (DType dt : kFloatDTypes)
    for (const auto& s : kNormShapes) check_rms_norm(Device::cuda(), dispatch::Backend::tile_cuda, dt, s, true);
}
TEST_F(NormGpu, LayerNormMatchesReference) {
  for (DType dt : kFloatDTypes)
    for (const auto& s : kNormShapes) check_layer_norm(Device::cuda(), dispatch::Backend::tile_cuda, dt, s);
}
TEST_F(NormGpu, RmsNormWithSettledWeightReadsItsInputAfterTheKernelBefore) {
  check_rms_norm_with_settled_weight(Device::cuda(), dispatch::Backend::tile_cuda);
}
TEST_F(NormGpu, BadInputIsAnErrorAndWritesNothing) { check_norm_bad_input(Device::cuda(), dispatch::Backend::tile_cuda); }
}  // namespace tessera::testing
