// The attention family on tile-host against the reference, and bad input.
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "ops/attention_cases.h"

namespace tessera::testing {
TEST(AttentionHost, BadInputIsAnErrorAndWritesNothing) { check_attention_bad_input(Device::cpu(), dispatch::Backend::tile_host); }
TEST(AttentionReference, BadInputIsAnErrorAndWritesNothing) { check_attention_bad_input(Device::cpu(), dispatch::Backend::reference); }
}  // namespace tessera::testing
