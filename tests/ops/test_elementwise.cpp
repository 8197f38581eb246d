// add and cast: the tile-host backend against the reference, bad input.
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "ops/elementwise_cases.h"

namespace tessera::testing {
class ElementwiseHost : public ::testing::Test {};
TESSERA_ELEMENTWISE_TESTS(ElementwiseHost, Device::cpu(), dispatch::Backend::tile_host)
}  // namespace tessera::testing
