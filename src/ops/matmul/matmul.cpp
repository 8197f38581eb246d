// Front-end of the matmul family: argument checks, then dispatch.
#include "ops/common/registry.h"
#include "ops/common/views.h"
#include "ops/matmul/args.h"

namespace tessera::ops {

namespace {
dispatch::Op<MatmulArgs>& matmul_op() {
  static dispatch::Op<MatmulArgs>& op = register_op<MatmulArgs>("matmul", &reference::matmul, &tile_host::matmul,
                                                                TESSERA_CUDA_FN(tile_cuda::matmul));
  return op;
}
}  // namespace

dispatch::Op<MatmulSiluAndMulArgs>& matmul_silu_and_mul_op() {
  static dispatch::Op<MatmulSiluAndMulArgs>& op = register_op<MatmulSiluAndMulArgs>(
      "matmul_silu_and_mul", &reference::matmul_silu_and_mul, &tile_host::matmul_silu_and_mul,
      TESSERA_CUDA_FN(tile_cuda::matmul_silu_and_mul));
  return op;
}

void register_matmul_silu_and_mul_op() { matmul_silu_and_mul_op(); }

void register_matmul_ops() {
  matmul_op();
  register_matmul_silu_and_mul_op();
  register_batched_matmul_ops();
  register_matmul_fp8_op();
}

dispatch::autotune::Key matmul_tune_key(DType dtype, int64_t m, int64_t n, int64_t k) {
  std::string dt(dtype_name(dtype));
  dt += "_nk";
  // M <= 64 has the swap-AB candidates too: a key of its own, so that choices cached before them are not reused.
  if (m <= 64) dt += "_swapab";
  if (m <= kMatmulFewRows) dt += "_rows";  // the few-rows configurations as well
  return dispatch::autotune::make_key("matmul", std::move(dt),
                                      dispatch::autotune::shape_class({{"m", dispatch::autotune::pow2_bucket(m)},
                                                                       {"n", n}, {"k", k}}));
}

void matmul(const Tensor& a, const Tensor& b, const Tensor& c, BLayout b_layout, const Epilogue& epilogue,
            const Options& options) {
  const Checker ck{"matmul"};
  ck.defined(a, "a");
  ck.defined(b, "b");
  ck.defined(c, "c");
  ck.require(b_layout == BLayout::nk || b_layout == BLayout::kn, "b_layout must be nk or kn");
  ck.rank_at_least(a, "a", 1);
  ck.rank_at_least(c, "c", 1);
  ck.require(b.ndim() == 2, [&] { return "b is " + b.str() + "; expected a 2-D matrix"; });
  ck.dtype_in(a, "a", {DType::f32, DType::f16, DType::bf16});
  ck.same_dtype(a, "a", b, "b");
  ck.require(c.dtype() == a.dtype() || c.dtype() == DType::f32, [&] {
    return "c is " + c.str() + "; its dtype must be a's (" + std::string(dtype_name(a.dtype())) + ") or f32";
  });
  ck.same_device(a, "a", b, "b");
  ck.same_device(a, "a", c, "c");
  const int64_t k = a.size(-1);
  const int64_t n = b_layout == BLayout::nk ? b.size(0) : b.size(1);
  const int64_t kb = b_layout == BLayout::nk ? b.size(1) : b.size(0);
  ck.inner_dims_match(a, "a", k, b, "b", kb);
  Shape want = a.shape();
  want.back() = n;
  ck.require(c.shape() == want, [&] { return "c is " + c.str() + "; expected shape " + shape_str(want); });
  for (auto [t, name] : {std::pair{&a, "a"}, std::pair{&b, "b"}, std::pair{&c, "c"}}) {
    ck.last_dim_contiguous(*t, name);
    ck.rows_fold(*t, name);
  }
  ck.bias_fits(epilogue.bias, n, a, "a");
  if (epilogue.residual.data()) {
    ck.same_shape(c, "c", epilogue.residual, "residual");
    ck.same_dtype(c, "c", epilogue.residual, "residual");
    ck.same_device(c, "c", epilogue.residual, "residual");
    ck.last_dim_contiguous(epilogue.residual, "residual");
    ck.rows_fold(epilogue.residual, "residual");
  }
  const int32_t act = int32_t(epilogue.activation);
  ck.require(act >= 0 && act <= int32_t(Activation::relu), [&] { return "invalid activation " + std::to_string(act); });
  ck.require(std::isfinite(epilogue.alpha), "alpha must be finite");
  if (c.numel() == 0) return;
  matmul_op()({a, b, c, b_layout, epilogue}, a.device(), options);
}

void matmul_silu_and_mul(const Tensor& a, const Tensor& w, const Tensor& c, const Tensor& scratch,
                         const Options& options) {
  const Checker ck{"matmul_silu_and_mul"};
  ck.defined(a, "a");
  ck.defined(w, "w");
  ck.defined(c, "c");
  ck.rank_at_least(a, "a", 1);
  ck.require(w.ndim() == 2, [&] { return "w is " + w.str() + "; expected a 2-D matrix [2I, K]"; });
  ck.dtype_in(a, "a", {DType::f32, DType::f16, DType::bf16});
  ck.same_dtype(a, "a", w, "w");
  ck.same_dtype(a, "a", c, "c");
  ck.same_device(a, "a", w, "w");
  ck.same_device(a, "a", c, "c");
  const int64_t k = a.size(-1);
  ck.inner_dims_match(a, "a", k, w, "w", w.size(1));
  ck.require(w.size(0) % 2 == 0,
             [&] { return "w is " + w.str() + "; its rows (gate, then up) must be even in number"; });
  Shape want = a.shape();
  want.back() = w.size(0) / 2;
  ck.require(c.shape() == want, [&] { return "c is " + c.str() + "; expected shape " + shape_str(want); });
  for (auto [t, name] : {std::pair{&a, "a"}, std::pair{&w, "w"}, std::pair{&c, "c"}}) {
    ck.last_dim_contiguous(*t, name);
    ck.rows_fold(*t, name);
  }
  if (scratch.data() != nullptr) {
    Shape wide = want;
    wide.back() *= 2;
    ck.require(scratch.shape() == wide,
               [&] { return "scratch is " + scratch.str() + "; expected shape " + shape_str(wide); });
    ck.same_dtype(c, "c", scratch, "scratch");
    ck.same_device(a, "a", scratch, "scratch");
    ck.require(scratch.is_contiguous(), "scratch must be contiguous");
  }
  if (c.numel() == 0) return;
  matmul_silu_and_mul_op()({a, w, c, scratch}, a.device(), options);
}

}  // namespace tessera::ops
