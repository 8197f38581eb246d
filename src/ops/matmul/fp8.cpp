// Front-end of matmul_fp8: argument checks, then dispatch. Nothing is written when a check fails.
#include <cmath>

#include "ops/common/registry.h"
#include "ops/common/views.h"
#include "ops/matmul/args.h"

namespace tessera::ops {

namespace {
dispatch::Op<MatmulFp8Args>& matmul_fp8_op() {
  static dispatch::Op<MatmulFp8Args>& op = register_op<MatmulFp8Args>(
      "matmul_fp8", &reference::matmul_fp8, &tile_host::matmul_fp8, TESSERA_CUDA_FN(tile_cuda::matmul_fp8));
  return op;
}
}  // namespace

void register_matmul_fp8_op() { matmul_fp8_op(); }

void matmul_fp8(const Tensor& a, const Tensor& b, const Tensor& c, float scale_a, float scale_b, const Options& options) {
  const Checker ck{"matmul_fp8"};
  ck.defined(a, "a");
  ck.defined(b, "b");
  ck.defined(c, "c");
  ck.rank_at_least(a, "a", 1);
  ck.rank_at_least(c, "c", 1);
  ck.require(b.ndim() == 2, [&] { return "b is " + b.str() + "; expected a 2-D [N, K] matrix"; });
  ck.dtype_in(a, "a", {DType::fp8_e4m3});
  ck.dtype_in(b, "b", {DType::fp8_e4m3});
  ck.dtype_in(c, "c", {DType::bf16, DType::f16, DType::f32});
  ck.same_device(a, "a", b, "b");
  ck.same_device(a, "a", c, "c");
  const int64_t k = a.size(-1), n = b.size(0);
  ck.inner_dims_match(a, "a", k, b, "b", b.size(1));
  Shape want = a.shape();
  want.back() = n;
  ck.require(c.shape() == want, [&] { return "c is " + c.str() + "; expected shape " + shape_str(want); });
  for (auto [t, name] : {std::pair{&a, "a"}, std::pair{&b, "b"}, std::pair{&c, "c"}}) {
    ck.last_dim_contiguous(*t, name);
    ck.rows_fold(*t, name);
  }
  ck.require(std::isfinite(scale_a) && std::isfinite(scale_b), "scale_a and scale_b must be finite");
  if (c.numel() == 0) return;
  matmul_fp8_op()({a, b, c, scale_a * scale_b}, a.device(), options);
}

}  // namespace tessera::ops
