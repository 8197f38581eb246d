// Front-ends of bmm and group_gemm: argument checks (shapes, dtypes, devices, strides, and offsets that live on
// the CPU), then dispatch. Nothing is written when a check fails.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "ops/common/registry.h"
#include "ops/common/views.h"
#include "ops/matmul/args.h"

namespace tessera::ops {

namespace {
dispatch::Op<BmmArgs>& bmm_op() {
  static dispatch::Op<BmmArgs>& op =
      register_op<BmmArgs>("bmm", &reference::bmm, &tile_host::bmm, TESSERA_CUDA_FN(tile_cuda::bmm));
  return op;
}
dispatch::Op<GroupGemmArgs>& group_gemm_op() {
  static dispatch::Op<GroupGemmArgs>& op = register_op<GroupGemmArgs>(
      "group_gemm", &reference::group_gemm, &tile_host::group_gemm, TESSERA_CUDA_FN(tile_cuda::group_gemm));
  return op;
}

std::string dims(int64_t x, int64_t y) {
  std::string s = "(";
  s += std::to_string(x);
  s += " vs ";
  s += std::to_string(y);
  s += ")";
  return s;
}

// The checks of every operand of the family: defined, floating dtype shared with a, c of a's dtype or f32,
// a's device, unit-stride last dim.
void check_operands(const Checker& ck, const Tensor& a, const Tensor& b, const Tensor& c, int rank_a, int rank_b, int rank_c) {
  ck.defined(a, "a");
  ck.defined(b, "b");
  ck.defined(c, "c");
  for (auto [t, name, rank] : {std::tuple{&a, "a", rank_a}, std::tuple{&b, "b", rank_b}, std::tuple{&c, "c", rank_c}})
    ck.require(t->ndim() == rank, [&] {
      return std::string(name) + " is " + t->str() + "; expected a rank-" + std::to_string(rank) + " tensor";
    });
  ck.dtype_in(a, "a", {DType::f32, DType::f16, DType::bf16});
  ck.same_dtype(a, "a", b, "b");
  ck.require(c.dtype() == a.dtype() || c.dtype() == DType::f32, [&] {
    return "c is " + c.str() + "; its dtype must be a's (" + std::string(dtype_name(a.dtype())) + ") or f32";
  });
  ck.same_device(a, "a", b, "b");
  ck.same_device(a, "a", c, "c");
  for (auto [t, name] : {std::pair{&a, "a"}, std::pair{&b, "b"}, std::pair{&c, "c"}}) ck.last_dim_contiguous(*t, name);
}
}  // namespace

void register_batched_matmul_ops() {
  bmm_op();
  group_gemm_op();
}

void bmm(const Tensor& a, const Tensor& b, const Tensor& c, BLayout b_layout, const Epilogue& epilogue,
         const Options& options) {
  const Checker ck{"bmm"};
  check_operands(ck, a, b, c, 3, 3, 3);
  ck.require(b_layout == BLayout::nk || b_layout == BLayout::kn, "b_layout must be nk or kn");
  const int64_t batch = a.size(0), m = a.size(1), k = a.size(2);
  const int64_t n = b_layout == BLayout::nk ? b.size(1) : b.size(2);
  const int64_t kb = b_layout == BLayout::nk ? b.size(2) : b.size(1);
  ck.require(b.size(0) == batch, [&] {
    return "a is " + a.str() + " and b is " + b.str() + ": batch sizes differ " + dims(batch, b.size(0));
  });
  ck.inner_dims_match(a, "a", k, b, "b", kb);
  ck.require(c.shape() == Shape{batch, m, n}, [&] {
    return "c is " + c.str() + "; expected shape " + shape_str({batch, m, n});
  });
  ck.bias_fits(epilogue.bias, n, a, "a");
  if (epilogue.residual.data()) {
    ck.same_shape(c, "c", epilogue.residual, "residual");
    ck.same_dtype(c, "c", epilogue.residual, "residual");
    ck.same_device(c, "c", epilogue.residual, "residual");
    ck.last_dim_contiguous(epilogue.residual, "residual");
  }
  const int32_t act = int32_t(epilogue.activation);
  ck.require(act >= 0 && act <= int32_t(Activation::relu), [&] { return "invalid activation " + std::to_string(act); });
  ck.require(std::isfinite(epilogue.alpha), "alpha must be finite");
  if (c.numel() == 0) return;
  bmm_op()({a, b, c, b_layout, epilogue}, a.device(), options);
}

void group_gemm(const Tensor& a, const Tensor& b, const Tensor& offsets, const Tensor& c, const Options& options) {
  const Checker ck{"group_gemm"};
  check_operands(ck, a, b, c, 2, 3, 2);
  const int64_t rows = a.size(0), k = a.size(1), groups = b.size(0), n = b.size(1);
  ck.inner_dims_match(a, "a", k, b, "b", b.size(2));
  ck.require(c.shape() == Shape{rows, n}, [&] {
    return "c is " + c.str() + "; expected shape " + shape_str({rows, n});
  });
  ck.defined(offsets, "offsets");
  ck.dtype_in(offsets, "offsets", {DType::i32, DType::i64});
  ck.shape_is(offsets, "offsets", {groups + 1});
  ck.same_device(a, "a", offsets, "offsets");
  ck.require(offsets.is_contiguous(), [&] { return "offsets is " + offsets.str() + "; it must be contiguous"; });
  int64_t max_group_rows = rows;
  if (offsets.device().is_cpu()) {
    const auto o = to_int_vector(offsets);
    auto at = [&](size_t i) { return "offsets[" + std::to_string(i) + "] = " + std::to_string(o[i]); };
    ck.require(o[0] == 0, [&] { return at(0) + "; it must be 0"; });
    max_group_rows = 0;
    for (size_t g = 1; g < o.size(); ++g) {
      ck.require(o[g] >= o[g - 1],
                 [&] { return at(g) + " is less than " + at(g - 1) + "; offsets must not decrease"; });
      max_group_rows = std::max(max_group_rows, o[g] - o[g - 1]);
    }
    ck.require(o.back() == rows,
               [&] { return at(o.size() - 1) + "; it must equal the " + std::to_string(rows) + " rows of a"; });
  }
  if (c.numel() == 0) return;
  group_gemm_op()({a, b, offsets, c, max_group_rows}, a.device(), options);
}

}  // namespace tessera::ops
