// Front-end of the sampling family: argument checks, then dispatch.
#include "tessera/ops/sampling.h"

#include <limits>

#include "ops/common/registry.h"
#include "ops/common/views.h"
#include "ops/sampling/args.h"

namespace tessera::ops {

namespace {
dispatch::Op<ArgmaxArgs>& argmax_op() {
  static dispatch::Op<ArgmaxArgs>& op =
      register_op<ArgmaxArgs>("argmax", &reference::argmax, &tile_host::argmax, TESSERA_CUDA_FN(tile_cuda::argmax));
  return op;
}
}  // namespace

void argmax(const Tensor& x, const Tensor& out, const Options& options) {
  const Checker c{"argmax"};
  c.defined(x, "x");
  c.defined(out, "out");
  c.rank_at_least(x, "x", 1);
  c.dtype_in(x, "x", {DType::f32, DType::f16, DType::bf16});
  c.dtype_in(out, "out", {DType::i32});
  c.same_device(x, "x", out, "out");
  c.last_dim_contiguous(x, "x");
  c.rows_fold(x, "x");
  const Shape& xs = x.shape();
  c.shape_is(out, "out", Shape(xs.begin(), xs.end() - 1));
  c.require(out.is_contiguous(), [&] { return "out must be contiguous, got " + out.str(); });
  c.require(x.size(-1) > 0 || out.numel() == 0,
            [&] { return "x " + x.str() + " has an empty last dim: no entry to choose"; });
  c.require(x.size(-1) <= std::numeric_limits<int32_t>::max(),
            [&] { return "x " + x.str() + " has rows longer than an i32 index reaches"; });
  if (x.numel() == 0) return;
  argmax_op()({x, out}, x.device(), options);
}

}  // namespace tessera::ops

namespace tessera::ops {
void register_sampling_ops() { argmax_op(); }
}  // namespace tessera::ops
