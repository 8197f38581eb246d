#include "ops/common/selfcheck_util.h"
#include "tessera/ops/activation.h"

namespace tessera::ops {

void add_activation_self_checks(std::vector<SelfCheck>& out) {
  using namespace selfcheck;
  for (auto [name, approx] : {std::pair{"gelu", GeluApprox::none}, std::pair{"gelu_tanh", GeluApprox::tanh}}) {
    out.push_back({name, [approx = approx](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                     std::mt19937_64 gen(seed);
                     const Shape s{37, 1000};
                     Tensor x = random(gen, s, dt, dev, -5, 5);
                     Tensor y = poisoned(s, dt, dev), y_ref = poisoned(s, dt, dev);
                     gelu(x, y, approx, {b});
                     gelu(x, y_ref, approx, {dispatch::Backend::reference});
                     return compare(y, y_ref, tolerance(dt));
                   }});
  }
  out.push_back({"silu_and_mul", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const Shape s{5, 2 * 4099}, ys{5, 4099};
                   Tensor x = random(gen, s, dt, dev, -5, 5);
                   Tensor y = poisoned(ys, dt, dev), y_ref = poisoned(ys, dt, dev);
                   silu_and_mul(x, y, {b});
                   silu_and_mul(x, y_ref, {dispatch::Backend::reference});
                   return compare(y, y_ref, tolerance(dt));
                 }});
}

}  // namespace tessera::ops
