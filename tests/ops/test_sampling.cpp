// argmax: the tile-host backend against the reference and hand-built rows, bad input.
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "ops/sampling_cases.h"

namespace tessera::testing {
class SamplingHost : public ::testing::Test {};
TESSERA_SAMPLING_TESTS(SamplingHost, Device::cpu(), dispatch::Backend::tile_host)
}  // namespace tessera::testing
