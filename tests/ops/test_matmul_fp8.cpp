#include "ops/matmul_fp8_cases.h"

namespace tessera::testing {
TEST(MatmulFp8Host, MatchesReference) { check_matmul_fp8_sweep(Device::cpu(), dispatch::Backend::tile_host); }
TEST(MatmulFp8Host, BadInputIsAnErrorAndWritesNothing) {
  check_matmul_fp8_bad_input(Device::cpu(), dispatch::Backend::tile_host);
}
}  // namespace tessera::testing
