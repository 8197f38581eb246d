// Front-ends of the elementwise family: argument checks, then dispatch.
#include "tessera/ops/elementwise.h"

#include "ops/common/registry.h"
#include "ops/common/views.h"
#include "ops/elementwise/args.h"

namespace tessera::ops {

namespace {
const std::initializer_list<DType> kFloatTypes = {DType::f32, DType::f16, DType::bf16};

void check_rows(const Checker& c, const Tensor& t, const char* name) {
  c.defined(t, name);
  c.dtype_in(t, name, kFloatTypes);
  c.last_dim_contiguous(t, name);
  c.rows_fold(t, name);
}

dispatch::Op<AddArgs>& add_op() {
  static dispatch::Op<AddArgs>& op =
      register_op<AddArgs>("add", &reference::add, &tile_host::add, TESSERA_CUDA_FN(tile_cuda::add));
  return op;
}

dispatch::Op<CastArgs>& cast_op() {
  static dispatch::Op<CastArgs>& op =
      register_op<CastArgs>("cast", &reference::cast, &tile_host::cast, TESSERA_CUDA_FN(tile_cuda::cast));
  return op;
}
dispatch::Op<TransposeArgs>& transpose_op() {
  static dispatch::Op<TransposeArgs>& op = register_op<TransposeArgs>("transpose", &reference::transpose, &tile_host::transpose,
                                                                      TESSERA_CUDA_FN(tile_cuda::transpose));
  return op;
}
}  // namespace

void add(const Tensor& a, const Tensor& b, const Tensor& y, const Options& options) {
  const Checker c{"add"};
  check_rows(c, a, "a");
  check_rows(c, b, "b");
  check_rows(c, y, "y");
  c.same_dtype(a, "a", b, "b");
  c.same_dtype(a, "a", y, "y");
  c.same_shape(a, "a", b, "b");
  c.same_shape(a, "a", y, "y");
  c.same_device(a, "a", b, "b");
  c.same_device(a, "a", y, "y");
  if (y.numel() == 0) return;
  add_op()({a, b, y}, y.device(), options);
}

void cast(const Tensor& x, const Tensor& y, const Options& options) {
  const Checker c{"cast"};
  check_rows(c, x, "x");
  check_rows(c, y, "y");
  c.same_shape(x, "x", y, "y");
  c.same_device(x, "x", y, "y");
  c.require(x.data() != y.data() || x.dtype() == y.dtype() || y.numel() == 0,
            "x and y share memory but differ in dtype; cast cannot run in place");
  if (y.numel() == 0) return;
  cast_op()({x, y}, y.device(), options);
}

void transpose(const Tensor& x, const Tensor& y, const Options& options) {
  const Checker c{"transpose"};
  check_rows(c, x, "x");
  check_rows(c, y, "y");
  c.require(x.ndim() == 2, [&] { return "x is " + x.str() + "; expected a matrix [rows, cols]"; });
  c.same_dtype(x, "x", y, "y");
  c.same_device(x, "x", y, "y");
  c.shape_is(y, "y", {x.size(1), x.size(0)});
  c.require(x.data() != y.data() || y.numel() == 0, "x and y share memory; transpose cannot run in place");
  if (y.numel() == 0) return;
  transpose_op()({x, y}, y.device(), options);
}

}  // namespace tessera::ops

namespace tessera::ops {
void register_elementwise_ops() {
  add_op();
  cast_op();
  transpose_op();
}
}  // namespace tessera::ops
