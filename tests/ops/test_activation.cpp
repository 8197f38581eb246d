// gelu and silu_and_mul: the tile-host backend against the reference, bad input.
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "ops/activation_cases.h"

namespace tessera::testing {
class ActivationHost : public ::testing::Test {};
TESSERA_ACTIVATION_TESTS(ActivationHost, Device::cpu(), dispatch::Backend::tile_host)
}  // namespace tessera::testing
