#include "ops/matmul_cases.h"

namespace tessera::testing {
TEST(MatmulHost, MatchesReference) { check_matmul_sweep(Device::cpu(), dispatch::Backend::tile_host); }
TEST(MatmulHost, SplitKIsRepeatable) { check_matmul_split_k_repeatable(Device::cpu(), dispatch::Backend::tile_host); }
TEST(MatmulHost, EverySwapABConfigurationMatchesTheReference) { check_matmul_swapab_configs(Device::cpu(), dispatch::Backend::tile_host); }
TEST(MatmulHost, EveryFewRowsConfigurationMatchesTheReference) { check_matmul_few_rows_configs(Device::cpu(), dispatch::Backend::tile_host); }
TEST(MatmulHost, FewRowsWithSettledWeightsReadTheActivationsOfTheKernelBefore) {
  check_few_rows_with_settled_weights(Device::cpu(), dispatch::Backend::tile_host, false);
}
TEST(MatmulHost, IntoAColumnWindowWritesNothingAroundIt) { check_matmul_into_column_window(Device::cpu(), dispatch::Backend::tile_host); }
TEST(MatmulHost, EverySm80StagedConfigurationMatchesTheReference) {
  check_matmul_sm80_staged_configs(Device::cpu(), dispatch::Backend::tile_host);
  check_matmul_into_column_window(Device::cpu(), dispatch::Backend::tile_host, kSm80StagedConfigs);
}
TEST(MatmulHost, BadInputIsAnErrorAndWritesNothing) { check_matmul_bad_input(Device::cpu(), dispatch::Backend::tile_host); }
TEST(MatmulHost, SiluAndMulMatchesTheReference) {
  check_matmul_silu_and_mul(Device::cpu(), dispatch::Backend::tile_host);
}
TEST(MatmulHost, SiluAndMulBadInputIsAnErrorAndWritesNothing) {
  check_matmul_silu_and_mul_bad_input(Device::cpu(), dispatch::Backend::tile_host);
}
}  // namespace tessera::testing
