// Argument structs of the elementwise family and the entry points of each backend.
#pragma once
#include "tessera/dispatch/dispatch.h"
#include "tessera/ops/elementwise.h"
#include "tessera/runtime/tensor.h"

namespace tessera::ops {

struct AddArgs {
  Tensor a, b, y;  // same shape and dtype; y may alias a or b
};

struct CastArgs {
  Tensor x, y;  // same shape, any float dtypes
};

struct TransposeArgs {
  Tensor x, y;  // [rows, cols] and [cols, rows], one dtype
};

#define TESSERA_ELEMENTWISE_BACKEND_DECLS                        \
  void add(const AddArgs& args, const dispatch::Options& opt);   \
  void cast(const CastArgs& args, const dispatch::Options& opt); \
  void transpose(const TransposeArgs& args, const dispatch::Options& opt);
namespace reference { TESSERA_ELEMENTWISE_BACKEND_DECLS }
namespace tile_host { TESSERA_ELEMENTWISE_BACKEND_DECLS }
namespace tile_cuda { TESSERA_ELEMENTWISE_BACKEND_DECLS }
#undef TESSERA_ELEMENTWISE_BACKEND_DECLS

}  // namespace tessera::ops
