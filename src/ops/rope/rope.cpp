// Front-end of the rope family: argument checks, then dispatch.
#include "tessera/ops/rope.h"

#include <cmath>

#include "ops/common/registry.h"
#include "ops/common/views.h"
#include "ops/rope/args.h"

namespace tessera::ops {

namespace {
dispatch::Op<RopeArgs>& rope_op() {
  static dispatch::Op<RopeArgs>& op =
      register_op<RopeArgs>("rope", &reference::rope, &tile_host::rope, TESSERA_CUDA_FN(tile_cuda::rope));
  return op;
}
}  // namespace

int64_t check_rope(const Checker& c, const Tensor& x, const Tensor& positions, const Tensor& inv_freq, const Tensor& y,
                   RopeLayout layout, int64_t rotary_dim, const char* x_name) {
  const std::string xn = x_name;
  c.defined(x, x_name);
  c.defined(y, "y");
  c.defined(positions, "positions");
  c.defined(inv_freq, "inv_freq");
  c.require(x.ndim() == 3, [&] { return xn + " is " + x.str() + "; expected 3 dims [tokens, heads, head_dim]"; });
  c.dtype_in(x, x_name, {DType::f32, DType::f16, DType::bf16});
  c.same_dtype(x, x_name, y, "y");
  c.same_shape(x, x_name, y, "y");
  c.same_device(x, x_name, y, "y");
  c.last_dim_contiguous(x, x_name);
  c.last_dim_contiguous(y, "y");
  c.require(layout == RopeLayout::neox || layout == RopeLayout::interleaved,
            [&] { return "layout " + std::to_string(int(layout)) + " is not a RopeLayout (neox 0, interleaved 1)"; });
  const int64_t head_dim = x.size(2);
  const int64_t rotary = rotary_dim == 0 ? head_dim : rotary_dim;
  c.require(rotary > 0 && rotary <= head_dim && rotary % 2 == 0, [&] {
    return "rotary_dim " + std::to_string(rotary) + " must be even and in (0, head_dim = " + std::to_string(head_dim) +
           "] (" + xn + " is " + x.str() + ")";
  });
  c.dtype_in(positions, "positions", {DType::i32, DType::i64});
  c.shape_is(positions, "positions", {x.size(0)});
  c.same_device(x, x_name, positions, "positions");
  c.dtype_in(inv_freq, "inv_freq", {DType::f32});
  c.shape_is(inv_freq, "inv_freq", {rotary / 2});
  c.same_device(x, x_name, inv_freq, "inv_freq");
  c.require(inv_freq.is_contiguous(), "inv_freq must be contiguous");
  return rotary;
}

void rope(const Tensor& x, const Tensor& positions, const Tensor& inv_freq, const Tensor& y, RopeLayout layout,
          int64_t rotary_dim, const Options& options) {
  const Checker c{"rope"};
  const int64_t rotary = check_rope(c, x, positions, inv_freq, y, layout, rotary_dim, "x");
  // y is x (in place) or does not overlap it; a partial overlap is not detected.
  if (x.numel() == 0) return;
  rope_op()({x, positions, inv_freq, y, layout, rotary}, x.device(), options);
}

std::vector<float> rope_inv_freq(int64_t rotary_dim, double theta) {
  const Checker c{"rope_inv_freq"};
  c.require(rotary_dim > 0 && rotary_dim % 2 == 0,
            [&] { return "rotary_dim " + std::to_string(rotary_dim) + " must be even and positive"; });
  c.require(std::isfinite(theta) && theta > 0, "theta must be finite and positive");
  std::vector<float> out(size_t(rotary_dim / 2));
  for (int64_t i = 0; i < rotary_dim / 2; ++i) out[size_t(i)] = float(std::pow(theta, -2.0 * double(i) / double(rotary_dim)));
  return out;
}

void register_rope_ops() { rope_op(); }

}  // namespace tessera::ops
