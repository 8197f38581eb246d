// Front-end of the softmax family: argument checks, then dispatch.
#include "tessera/ops/softmax.h"

#include <cmath>

#include "ops/common/registry.h"
#include "ops/common/views.h"
#include "ops/softmax/args.h"

namespace tessera::ops {

namespace {
const std::initializer_list<DType> kFloatTypes = {DType::f32, DType::f16, DType::bf16};

dispatch::Op<SoftmaxArgs>& softmax_op() {
  static dispatch::Op<SoftmaxArgs>& op =
      register_op<SoftmaxArgs>("softmax", &reference::softmax, &tile_host::softmax, TESSERA_CUDA_FN(tile_cuda::softmax));
  return op;
}
}  // namespace

void softmax(const Tensor& x, const Tensor& y, float scale, const Options& options) {
  const Checker c{"softmax"};
  c.defined(x, "x");
  c.defined(y, "y");
  c.rank_at_least(x, "x", 1);
  c.dtype_in(x, "x", kFloatTypes);
  c.same_dtype(x, "x", y, "y");
  c.same_shape(x, "x", y, "y");
  c.same_device(x, "x", y, "y");
  c.last_dim_contiguous(x, "x");
  c.last_dim_contiguous(y, "y");
  c.rows_fold(x, "x");
  c.rows_fold(y, "y");
  c.require(x.size(-1) > 0 || x.numel() == 0, "x has an empty last dim");
  c.require(std::isfinite(scale), "scale must be finite");
  if (x.numel() == 0) return;
  softmax_op()({x, y, scale}, x.device(), options);
}

}  // namespace tessera::ops

namespace tessera::ops {
void register_softmax_ops() { softmax_op(); }
}  // namespace tessera::ops
