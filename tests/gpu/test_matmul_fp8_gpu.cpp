#include "ops/matmul_fp8_cases.h"

namespace tessera::testing {
TEST(MatmulFp8Gpu, MatchesReference) {
  TESSERA_REQUIRE_GPU();
  check_matmul_fp8_sweep(Device::cuda(), dispatch::Backend::tile_cuda);
}
TEST(MatmulFp8Gpu, BadInputIsAnErrorAndWritesNothing) {
  TESSERA_REQUIRE_GPU();
  check_matmul_fp8_bad_input(Device::cuda(), dispatch::Backend::tile_cuda);
}
}  // namespace tessera::testing
