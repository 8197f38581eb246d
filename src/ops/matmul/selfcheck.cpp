#include "ops/common/selfcheck_util.h"
#include "tessera/ops/matmul.h"

namespace tessera::ops {

void add_matmul_self_checks(std::vector<SelfCheck>& out) {
  using namespace selfcheck;
  out.push_back({"matmul", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const int64_t m = 67, n = 130, k = 97;
                   Tensor a = random(gen, {m, k}, dt, dev), w = random(gen, {n, k}, dt, dev), bias = random(gen, {n}, dt, dev);
                   Tensor c = poisoned({m, n}, dt, dev), c_ref = poisoned({m, n}, dt, dev);
                   Epilogue e{bias, Activation::silu, 0.5f, {}};
                   matmul(a, w, c, BLayout::nk, e, {b});
                   matmul(a, w, c_ref, BLayout::nk, e, {dispatch::Backend::reference});
                   return compare(c, c_ref, tolerance(dt));
                 }});
}

}  // namespace tessera::ops
