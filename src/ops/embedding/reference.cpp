// Plain C++ reference of the embedding family, independent of the tile language.
#include "ops/common/views.h"
#include "ops/embedding/args.h"

namespace tessera::ops::reference {

void embedding(const EmbeddingArgs& a, const dispatch::Options&) {
  const auto ids = to_int_vector(a.ids);
  const int64_t vocab = a.table.size(0), dim = a.table.size(1);
  // The ids may live on a GPU, where the front-end has not seen them: check before writing anything.
  if (const int64_t bad = first_bad_id(ids, vocab); bad >= 0) bad_id_error(a, bad);
  // Only the rows that are looked up are read (a table can be large); floats hold f32, f16 and bf16 exactly.
  std::vector<float> y;
  y.reserve(ids.size() * size_t(dim));
  const size_t row_bytes = size_t(a.table.stride(0)) * dtype_size(a.table.dtype());
  for (int64_t id : ids) {
    const Tensor row = Tensor::view(static_cast<char*>(a.table.data()) + size_t(id) * row_bytes, {dim},
                                    a.table.dtype(), a.table.device(), {a.table.stride(1)});
    const auto values = to_float_vector(row);
    y.insert(y.end(), values.begin(), values.end());
  }
  write_float_vector(a.y, y);
}

}  // namespace tessera::ops::reference
