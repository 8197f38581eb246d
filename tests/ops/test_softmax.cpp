// softmax: the tile-host backend against the reference, -inf rows, in place, bad input.
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "ops/softmax_cases.h"

namespace tessera::testing {
class SoftmaxHost : public ::testing::Test {};
TESSERA_SOFTMAX_TESTS(SoftmaxHost, Device::cpu(), dispatch::Backend::tile_host)
}  // namespace tessera::testing
