#include "ops/common/selfcheck_util.h"
#include "tessera/ops/sampling.h"

namespace tessera::ops {

void add_sampling_self_checks(std::vector<SelfCheck>& out) {
  using namespace selfcheck;
  out.push_back({"argmax", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const Shape s{5, 40009};
                   Tensor x = random(gen, s, dt, dev, -8, 8);
                   Tensor got = poisoned({5}, DType::i32, dev), want = poisoned({5}, DType::i32, dev);
                   argmax(x, got, {b});
                   argmax(x, want, {dispatch::Backend::reference});
                   return compare(got, want, 0.0);
                 }});
}

}  // namespace tessera::ops
