// Front-ends of the activation family: argument checks, then dispatch.
#include "tessera/ops/activation.h"

#include "ops/activation/args.h"
#include "ops/common/registry.h"
#include "ops/common/views.h"

namespace tessera::ops {

namespace {
const std::initializer_list<DType> kFloatTypes = {DType::f32, DType::f16, DType::bf16};

// x and y defined, a float dtype they share, one device, unit-stride last dims, leading dims that fold.
void check_rows_pair(const Checker& c, const Tensor& x, const Tensor& y) {
  c.defined(x, "x");
  c.defined(y, "y");
  c.rank_at_least(x, "x", 1);
  c.dtype_in(x, "x", kFloatTypes);
  c.same_dtype(x, "x", y, "y");
  c.same_device(x, "x", y, "y");
  c.last_dim_contiguous(x, "x");
  c.last_dim_contiguous(y, "y");
  c.rows_fold(x, "x");
  c.rows_fold(y, "y");
}

dispatch::Op<GeluArgs>& gelu_op() {
  static dispatch::Op<GeluArgs>& op =
      register_op<GeluArgs>("gelu", &reference::gelu, &tile_host::gelu, TESSERA_CUDA_FN(tile_cuda::gelu));
  return op;
}

dispatch::Op<SiluAndMulArgs>& silu_and_mul_op() {
  static dispatch::Op<SiluAndMulArgs>& op = register_op<SiluAndMulArgs>(
      "silu_and_mul", &reference::silu_and_mul, &tile_host::silu_and_mul, TESSERA_CUDA_FN(tile_cuda::silu_and_mul));
  return op;
}
}  // namespace

void gelu(const Tensor& x, const Tensor& y, GeluApprox approx, const Options& options) {
  const Checker c{"gelu"};
  check_rows_pair(c, x, y);
  c.same_shape(x, "x", y, "y");
  c.require(approx == GeluApprox::none || approx == GeluApprox::tanh,
            [&] { return "approx is " + std::to_string(int32_t(approx)) + "; expected none (0) or tanh (1)"; });
  if (x.numel() == 0) return;
  gelu_op()({x, y, approx}, x.device(), options);
}

void silu_and_mul(const Tensor& x, const Tensor& y, const Options& options) {
  const Checker c{"silu_and_mul"};
  check_rows_pair(c, x, y);
  c.require(x.size(-1) % 2 == 0,
            [&] { return "x is " + x.str() + "; its last dim must be even ([..., 2n] = [gate | up])"; });
  Shape expect = x.shape();
  expect.back() /= 2;
  c.shape_is(y, "y", expect);
  if (y.numel() == 0) return;
  silu_and_mul_op()({x, y}, x.device(), options);
}

}  // namespace tessera::ops

namespace tessera::ops {
void register_activation_ops() {
  gelu_op();
  silu_and_mul_op();
}
}  // namespace tessera::ops
