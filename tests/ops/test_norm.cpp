// rms_norm, rms_norm_residual and layer_norm: tile backends against the reference, bad input.
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "ops/norm_cases.h"

namespace tessera::testing {
TESSERA_NORM_TESTS(NormHost, Device::cpu(), dispatch::Backend::tile_host)
}  // namespace tessera::testing
