#include "ops/common/selfcheck_util.h"
#include "tessera/ops/norm.h"

namespace tessera::ops {

void add_norm_self_checks(std::vector<SelfCheck>& out) {
  using namespace selfcheck;
  out.push_back({"rms_norm", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const Shape s{37, 1000};
                   Tensor x = random(gen, s, dt, dev), w = random(gen, {1000}, dt, dev, 0.5f, 1.5f);
                   Tensor y = poisoned(s, dt, dev), y_ref = poisoned(s, dt, dev);
                   rms_norm(x, w, y, 1e-6f, {b});
                   rms_norm(x, w, y_ref, 1e-6f, {dispatch::Backend::reference});
                   return compare(y, y_ref, tolerance(dt));
                 }});
  out.push_back({"rms_norm_residual", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const Shape s{5, 9000};
                   Tensor x = random(gen, s, dt, dev), r = random(gen, s, dt, dev), w = random(gen, {9000}, dt, dev);
                   Tensor h = poisoned(s, dt, dev), h_ref = poisoned(s, dt, dev);
                   Tensor y = poisoned(s, dt, dev), y_ref = poisoned(s, dt, dev);
                   rms_norm_residual(x, r, h, w, y, 1e-6f, {b});
                   rms_norm_residual(x, r, h_ref, w, y_ref, 1e-6f, {dispatch::Backend::reference});
                   auto res = compare(y, y_ref, tolerance(dt));
                   const auto hres = compare(h, h_ref, tolerance(dt));
                   res.passed = res.passed && hres.passed;
                   res.max_abs_error = std::max(res.max_abs_error, hres.max_abs_error);
                   return res;
                 }});
  out.push_back({"layer_norm", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const Shape s{3, 4099};
                   Tensor x = random(gen, s, dt, dev, -3, 5), w = random(gen, {4099}, dt, dev), bias = random(gen, {4099}, dt, dev);
                   Tensor y = poisoned(s, dt, dev), y_ref = poisoned(s, dt, dev);
                   layer_norm(x, w, bias, y, 1e-5f, {b});
                   layer_norm(x, w, bias, y_ref, 1e-5f, {dispatch::Backend::reference});
                   return compare(y, y_ref, tolerance(dt));
                 }});
}

}  // namespace tessera::ops
