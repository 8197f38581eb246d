#include "ops/matmul_batched_cases.h"

namespace tessera::testing {
TEST(BmmGpu, MatchesReference) {
  TESSERA_REQUIRE_GPU();
  check_bmm_sweep(Device::cuda(), dispatch::Backend::tile_cuda);
}
TEST(BmmGpu, BadInputIsAnErrorAndWritesNothing) {
  TESSERA_REQUIRE_GPU();
  check_bmm_bad_input(Device::cuda(), dispatch::Backend::tile_cuda);
}
TEST(GroupGemmGpu, MatchesReference) {
  TESSERA_REQUIRE_GPU();
  check_group_gemm_sweep(Device::cuda(), dispatch::Backend::tile_cuda);
}
TEST(GroupGemmGpu, BadInputIsAnErrorAndWritesNothing) {
  TESSERA_REQUIRE_GPU();
  check_group_gemm_bad_input(Device::cuda(), dispatch::Backend::tile_cuda);
}
}  // namespace tessera::testing
