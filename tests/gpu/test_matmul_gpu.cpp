#include "ops/matmul_cases.h"

namespace tessera::testing {
TEST(MatmulGpu, MatchesReference) {
  TESSERA_REQUIRE_GPU();
  check_matmul_sweep(Device::cuda(), dispatch::Backend::tile_cuda);
}
TEST(MatmulGpu, SplitKIsRepeatable) {
  TESSERA_REQUIRE_GPU();
  check_matmul_split_k_repeatable(Device::cuda(), dispatch::Backend::tile_cuda);
}
TEST(MatmulGpu, EverySwapABConfigurationMatchesTheReference) {
  TESSERA_REQUIRE_HOPPER_KERNELS();
  check_matmul_swapab_configs(Device::cuda(), dispatch::Backend::tile_cuda);
}
TEST(MatmulGpu, EveryFewRowsConfigurationMatchesTheReference) {
  TESSERA_REQUIRE_GPU();
  check_matmul_few_rows_configs(Device::cuda(), dispatch::Backend::tile_cuda);
}
// Options::weights_settled: the first weight tiles before the wait for the kernel that writes the activations.
TEST(MatmulGpu, FewRowsWithSettledWeightsReadTheActivationsOfTheKernelBefore) {
  TESSERA_REQUIRE_GPU();
  check_few_rows_with_settled_weights(Device::cuda(), dispatch::Backend::tile_cuda, true);
}
TEST(MatmulGpu, IntoAColumnWindowWritesNothingAroundIt) {
  TESSERA_REQUIRE_HOPPER_KERNELS();  // every staged configuration, forced
  check_matmul_into_column_window(Device::cuda(), dispatch::Backend::tile_cuda);
}
// The staged kernel on the tile library's sm_80 pipeline: a GPU before Hopper, or a Hopper GPU given a build with
// sm_80 PTX only (scripts/build_sm80.sh).
TEST(MatmulGpu, EverySm80StagedConfigurationMatchesTheReference) {
  TESSERA_REQUIRE_GPU();
  if (!cuda_sm80_pipelines()) GTEST_SKIP() << "skipped: this GPU runs no sm_80 staged pipelines";
  check_matmul_sm80_staged_configs(Device::cuda(), dispatch::Backend::tile_cuda);
  check_matmul_into_column_window(Device::cuda(), dispatch::Backend::tile_cuda, kSm80StagedConfigs);
}
TEST(MatmulGpu, BadInputIsAnErrorAndWritesNothing) {
  TESSERA_REQUIRE_GPU();
  check_matmul_bad_input(Device::cuda(), dispatch::Backend::tile_cuda);
}
TEST(MatmulGpu, SiluAndMulMatchesTheReference) {
  TESSERA_REQUIRE_GPU();
  check_matmul_silu_and_mul(Device::cuda(), dispatch::Backend::tile_cuda);
}
TEST(MatmulGpu, SiluAndMulBadInputIsAnErrorAndWritesNothing) {
  TESSERA_REQUIRE_GPU();
  check_matmul_silu_and_mul_bad_input(Device::cuda(), dispatch::Backend::tile_cuda);
}
}  // namespace tessera::testing
