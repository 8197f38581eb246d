#include "ops/common/selfcheck_util.h"
#include "tessera/ops/elementwise.h"

namespace tessera::ops {

void add_elementwise_self_checks(std::vector<SelfCheck>& out) {
  using namespace selfcheck;
  out.push_back({"add", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const Shape s{37, 1000};
                   Tensor x = random(gen, s, dt, dev, -5, 5), z = random(gen, s, dt, dev, -5, 5);
                   Tensor y = poisoned(s, dt, dev), y_ref = poisoned(s, dt, dev);
                   add(x, z, y, {b});
                   add(x, z, y_ref, {dispatch::Backend::reference});
                   return compare(y, y_ref, tolerance(dt));
                 }});
  out.push_back({"cast", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const Shape s{37, 1000};
                   Tensor x = random(gen, s, DType::f32, dev, -5, 5);
                   Tensor y = poisoned(s, dt, dev), y_ref = poisoned(s, dt, dev);
                   cast(x, y, {b});
                   cast(x, y_ref, {dispatch::Backend::reference});
                   return compare(y, y_ref, 0);
                 }});
  out.push_back({"transpose", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   Tensor x = random(gen, {333, 1000}, dt, dev, -5, 5);
                   Tensor y = poisoned({1000, 333}, dt, dev), y_ref = poisoned({1000, 333}, dt, dev);
                   transpose(x, y, {b});
                   transpose(x, y_ref, {dispatch::Backend::reference});
                   return compare(y, y_ref, 0);
                 }});
}

}  // namespace tessera::ops
