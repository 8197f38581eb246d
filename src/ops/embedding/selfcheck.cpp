#include "ops/common/selfcheck_util.h"
#include "tessera/ops/embedding.h"

namespace tessera::ops {

void add_embedding_self_checks(std::vector<SelfCheck>& out) {
  using namespace selfcheck;
  out.push_back({"embedding", [](dispatch::Backend b, DType dt, Device dev, uint64_t seed) {
                   std::mt19937_64 gen(seed);
                   const int64_t vocab = 5003, dim = 1000;
                   Tensor table = random(gen, {vocab, dim}, dt, dev);
                   Tensor ids = random(gen, {3, 13}, DType::i32, dev, 0, float(vocab));
                   Tensor y = poisoned({3, 13, dim}, dt, dev), y_ref = poisoned({3, 13, dim}, dt, dev);
                   embedding(ids, table, y, {b});
                   embedding(ids, table, y_ref, {dispatch::Backend::reference});
                   return compare(y, y_ref, 0.0);
                 }});
}

}  // namespace tessera::ops
