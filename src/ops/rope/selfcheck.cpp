#include "ops/common/selfcheck_util.h"
#include "tessera/ops/rope.h"

namespace tessera::ops {

namespace {
// x [tokens, heads, head_dim] in dt against the reference, positions below 4096 (the tolerance covers fp32
// angles at that size).
SelfCheckResult check_rope(dispatch::Backend b, DType dt, Device dev, uint64_t seed, RopeLayout layout, int64_t heads,
                           int64_t head_dim, int64_t rotary) {
  using namespace selfcheck;
  std::mt19937_64 gen(seed);
  const Shape s{37, heads, head_dim};
  Tensor x = random(gen, s, dt, dev);
  Tensor pos = random(gen, {37}, DType::i32, dev, 0, 4096);
  const auto f = rope_inv_freq(rotary, 10000.0);
  Tensor freq = Tensor::empty({int64_t(f.size())}, DType::f32, dev);
  write_float_vector(freq, f);
  Tensor y = poisoned(s, dt, dev), y_ref = poisoned(s, dt, dev);
  rope(x, pos, freq, y, layout, rotary, {b});
  rope(x, pos, freq, y_ref, layout, rotary, {dispatch::Backend::reference});
  return compare(y, y_ref, std::max(tolerance(dt), 1e-3));
}
}  // namespace

void add_rope_self_checks(std::vector<SelfCheck>& out) {
  out.push_back({"rope", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   return check_rope(b, dt, dev, seed, RopeLayout::neox, 32, 128, 128);
                 }});
  out.push_back({"rope_interleaved", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   return check_rope(b, dt, dev, seed, RopeLayout::interleaved, 7, 80, 64);
                 }});
}

}  // namespace tessera::ops
