// Self-checks of the attention family for `tessera ops check` (filled in with the tile kernels).
#include "ops/common/selfcheck_util.h"
#include "tessera/ops/attention.h"

namespace tessera::ops {

void add_attention_self_checks(std::vector<SelfCheck>&) {}

}  // namespace tessera::ops
