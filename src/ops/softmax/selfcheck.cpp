#include "ops/common/selfcheck_util.h"
#include "tessera/ops/softmax.h"

namespace tessera::ops {

void add_softmax_self_checks(std::vector<SelfCheck>& out) {
  using namespace selfcheck;
  out.push_back({"softmax", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const Shape s{37, 1000};
                   Tensor x = random(gen, s, dt, dev, -8, 8);
                   Tensor y = poisoned(s, dt, dev), y_ref = poisoned(s, dt, dev);
                   softmax(x, y, 0.5f, {b});
                   softmax(x, y_ref, 0.5f, {dispatch::Backend::reference});
                   return compare(y, y_ref, tolerance(dt));
                 }});
  out.push_back({"softmax_wide", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const Shape s{3, 20011};
                   Tensor x = random(gen, s, dt, dev, -8, 8);
                   Tensor y = poisoned(s, dt, dev), y_ref = poisoned(s, dt, dev);
                   softmax(x, y, 1.f, {b});
                   softmax(x, y_ref, 1.f, {dispatch::Backend::reference});
                   return compare(y, y_ref, tolerance(dt));
                 }});
}

}  // namespace tessera::ops
