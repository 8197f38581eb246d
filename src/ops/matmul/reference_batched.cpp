// Plain C++ references of bmm and group_gemm: the reference matmul on each problem's slice of the tensors.
#include "ops/common/views.h"
#include "ops/matmul/args.h"

namespace tessera::ops::reference {

namespace {
// The [rows, cols] matrix at index `i` of a rank-3 tensor, or rows [begin, end) of a rank-2 one.
Tensor matrix_of(const Tensor& t, int64_t i) {
  auto* base = static_cast<char*>(t.data()) + i * t.stride(0) * int64_t(dtype_size(t.dtype()));
  return Tensor::view(base, {t.size(1), t.size(2)}, t.dtype(), t.device(), {t.stride(1), t.stride(2)});
}
Tensor rows_of(const Tensor& t, int64_t begin, int64_t end) {
  auto* base = static_cast<char*>(t.data()) + begin * t.stride(0) * int64_t(dtype_size(t.dtype()));
  return Tensor::view(base, {end - begin, t.size(1)}, t.dtype(), t.device(), {t.stride(0), t.stride(1)});
}
}  // namespace

void bmm(const BmmArgs& args, const dispatch::Options& opt) {
  for (int64_t i = 0; i < args.c.size(0); ++i) {
    Epilogue e = args.epilogue;
    if (e.residual.data()) e.residual = matrix_of(e.residual, i);
    matmul({matrix_of(args.a, i), matrix_of(args.b, i), matrix_of(args.c, i), args.b_layout, e}, opt);
  }
}

void group_gemm(const GroupGemmArgs& args, const dispatch::Options& opt) {
  const auto offsets = to_int_vector(args.offsets);
  const int64_t rows = args.a.size(0);
  for (size_t g = 0; g + 1 < offsets.size(); ++g) {
    // Offsets on a GPU were not checked by the front-end: check them here, before anything is written.
    check(offsets[0] == 0 && offsets[g] <= offsets[g + 1] && offsets.back() == rows,
          "group_gemm: offsets must rise from 0 to the " + std::to_string(rows) + " rows of a");
  }
  for (size_t g = 0; g + 1 < offsets.size(); ++g) {
    if (offsets[g + 1] == offsets[g]) continue;
    matmul({rows_of(args.a, offsets[g], offsets[g + 1]), matrix_of(args.b, int64_t(g)),
            rows_of(args.c, offsets[g], offsets[g + 1]), BLayout::nk, {}},
           opt);
  }
}

}  // namespace tessera::ops::reference
