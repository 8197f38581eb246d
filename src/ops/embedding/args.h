// Argument structs of the embedding family and the entry points of each backend.
#pragma once
#include "tessera/dispatch/dispatch.h"
#include "tessera/runtime/tensor.h"

namespace tessera::ops {

struct EmbeddingArgs {
  Tensor ids;    // any shape, i32 or i64, contiguous
  Tensor table;  // [vocab, dim]
  Tensor y;      // [ids..., dim]
};

// The first position (row-major over ids) whose id is outside [0, vocab), or -1 when there is none.
int64_t first_bad_id(const std::vector<int64_t>& ids, int64_t vocab);
// Throws invalid_argument naming the id at flat position `position` of a.ids, its value and the vocabulary.
[[noreturn]] void bad_id_error(const EmbeddingArgs& a, int64_t position);

#define TESSERA_EMBEDDING_BACKEND_DECLS void embedding(const EmbeddingArgs& args, const dispatch::Options& opt);
namespace reference { TESSERA_EMBEDDING_BACKEND_DECLS }
namespace tile_host { TESSERA_EMBEDDING_BACKEND_DECLS }
namespace tile_cuda { TESSERA_EMBEDDING_BACKEND_DECLS }
#undef TESSERA_EMBEDDING_BACKEND_DECLS

}  // namespace tessera::ops
