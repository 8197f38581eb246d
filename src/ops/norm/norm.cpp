// Front-ends of the norm family: argument checks, then dispatch.
#include "tessera/ops/norm.h"

#include "ops/common/registry.h"
#include "ops/common/views.h"
#include "ops/norm/args.h"

namespace tessera::ops {

namespace {
const std::initializer_list<DType> kFloatTypes = {DType::f32, DType::f16, DType::bf16};

// x [..., n], weight [n] (and bias [n]), y shaped like x, last dims unit-stride. y and the vectors share a
// dtype; x has it too, or is fp32 (a residual stream kept in fp32, normalised into 16-bit activations).
void check_normed(const Checker& c, const Tensor& x, const Tensor& y, std::initializer_list<std::pair<const Tensor*, const char*>> vectors) {
  c.defined(x, "x");
  c.defined(y, "y");
  c.rank_at_least(x, "x", 1);
  c.dtype_in(x, "x", kFloatTypes);
  c.dtype_in(y, "y", kFloatTypes);
  c.require(x.dtype() == y.dtype() || x.dtype() == DType::f32, [&] {
    return "dtype of y (" + std::string(dtype_name(y.dtype())) + ") differs from x's (" +
           std::string(dtype_name(x.dtype())) + "): only an f32 x may be normalised into another dtype";
  });
  c.same_shape(x, "x", y, "y");
  c.same_device(x, "x", y, "y");
  c.last_dim_contiguous(x, "x");
  c.last_dim_contiguous(y, "y");
  c.rows_fold(x, "x");
  c.rows_fold(y, "y");
  c.require(x.size(-1) > 0 || x.numel() == 0, "x has an empty last dim");
  for (auto [t, name] : vectors) {
    c.defined(*t, name);
    c.shape_is(*t, name, {x.size(-1)});
    c.same_dtype(y, "y", *t, name);
    c.same_device(x, "x", *t, name);
    c.require(t->is_contiguous(), [&] { return std::string(name) + " must be contiguous"; });
  }
}

dispatch::Op<RmsNormArgs>& rms_norm_op() {
  static dispatch::Op<RmsNormArgs>& op = register_op<RmsNormArgs>("rms_norm", &reference::rms_norm, &tile_host::rms_norm,
                                                                  TESSERA_CUDA_FN(tile_cuda::rms_norm));
  return op;
}

dispatch::Op<LayerNormArgs>& layer_norm_op() {
  static dispatch::Op<LayerNormArgs>& op = register_op<LayerNormArgs>("layer_norm", &reference::layer_norm, &tile_host::layer_norm,
                                                                      TESSERA_CUDA_FN(tile_cuda::layer_norm));
  return op;
}
}  // namespace

void rms_norm(const Tensor& x, const Tensor& weight, const Tensor& y, float eps, const Options& options) {
  const Checker c{"rms_norm"};
  check_normed(c, x, y, {{&weight, "weight"}});
  c.require(std::isfinite(eps) && eps >= 0, "eps must be finite and non-negative");
  if (x.numel() == 0) return;
  rms_norm_op()({x, weight, y, {}, {}, eps}, x.device(), options);
}

void rms_norm_residual(const Tensor& x, const Tensor& residual, const Tensor& residual_out, const Tensor& weight,
                       const Tensor& y, float eps, const Options& options) {
  const Checker c{"rms_norm_residual"};
  check_normed(c, x, y, {{&weight, "weight"}});
  for (auto [t, name] : {std::pair{&residual, "residual"}, std::pair{&residual_out, "residual_out"}}) {
    c.defined(*t, name);
    c.same_shape(x, "x", *t, name);
    c.same_dtype(x, "x", *t, name);
    c.same_device(x, "x", *t, name);
    c.last_dim_contiguous(*t, name);
    c.rows_fold(*t, name);
  }
  c.require(std::isfinite(eps) && eps >= 0, "eps must be finite and non-negative");
  if (x.numel() == 0) return;
  rms_norm_op()({x, weight, y, residual, residual_out, eps}, x.device(), options);
}

void layer_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& y, float eps,
                const Options& options) {
  const Checker c{"layer_norm"};
  check_normed(c, x, y, {{&weight, "weight"}, {&bias, "bias"}});
  c.require(std::isfinite(eps) && eps >= 0, "eps must be finite and non-negative");
  if (x.numel() == 0) return;
  layer_norm_op()({x, weight, bias, y, eps}, x.device(), options);
}

}  // namespace tessera::ops

namespace tessera::ops {
void register_norm_ops() {
  rms_norm_op();
  layer_norm_op();
}
}  // namespace tessera::ops
