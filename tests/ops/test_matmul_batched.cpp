#include "ops/matmul_batched_cases.h"

namespace tessera::testing {
TEST(BmmHost, MatchesReference) { check_bmm_sweep(Device::cpu(), dispatch::Backend::tile_host); }
TEST(BmmHost, BadInputIsAnErrorAndWritesNothing) { check_bmm_bad_input(Device::cpu(), dispatch::Backend::tile_host); }
TEST(GroupGemmHost, MatchesReference) { check_group_gemm_sweep(Device::cpu(), dispatch::Backend::tile_host); }
TEST(GroupGemmHost, BadInputIsAnErrorAndWritesNothing) {
  check_group_gemm_bad_input(Device::cpu(), dispatch::Backend::tile_host);
}
}  // namespace tessera::testing
