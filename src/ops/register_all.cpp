// The list of op families. A new family adds its two functions here.
#include "tessera/ops/selfcheck.h"

namespace tessera::ops {

#define TESSERA_OP_FAMILIES(X) X(norm) X(activation) X(softmax) X(rope) X(embedding) X(matmul) X(attention) X(elementwise) X(sampling)

#define TESSERA_DECLARE_FAMILY(family)  \
  void register_##family##_ops();       \
  void add_##family##_self_checks(std::vector<SelfCheck>& out);
TESSERA_OP_FAMILIES(TESSERA_DECLARE_FAMILY)
#undef TESSERA_DECLARE_FAMILY

void register_all() {
#define TESSERA_REGISTER_FAMILY(family) register_##family##_ops();
  TESSERA_OP_FAMILIES(TESSERA_REGISTER_FAMILY)
#undef TESSERA_REGISTER_FAMILY
}

std::vector<SelfCheck> all_self_checks() {
  std::vector<SelfCheck> out;
#define TESSERA_ADD_FAMILY(family) add_##family##_self_checks(out);
  TESSERA_OP_FAMILIES(TESSERA_ADD_FAMILY)
#undef TESSERA_ADD_FAMILY
  return out;
}

}  // namespace tessera::ops
