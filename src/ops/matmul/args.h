#pragma once
#include "tessera/dispatch/autotune.h"
#include "tessera/ops/matmul.h"

namespace tessera::ops {

// Calls with at most this many activation rows also have the few-rows kernel's configurations (launch.h),
// and tune under keys of their own (matmul_tune_key).
inline constexpr int64_t kMatmulFewRows = 4;

struct MatmulArgs {
  Tensor a, b, c;
  BLayout b_layout = BLayout::nk;
  Epilogue epilogue;
};

struct BmmArgs {
  Tensor a, b, c;  // [B, M, K]; [B, N, K] or [B, K, N]; [B, M, N]
  BLayout b_layout = BLayout::nk;
  Epilogue epilogue;
};

struct GroupGemmArgs {
  Tensor a, b, offsets, c;  // [sum M_g, K]; [G, N, K]; [G + 1] i32 or i64; [sum M_g, N]
  // Rows of the largest group when the offsets are on the CPU (known exactly), else every row of a.
  int64_t max_group_rows = 0;
};

struct MatmulFp8Args {
  Tensor a, b, c;  // [M, K] fp8_e4m3; [N, K] fp8_e4m3; [M, N] bf16, f16 or f32
  float scale = 1.f;  // scale_a * scale_b
};

struct MatmulSiluAndMulArgs {
  Tensor a, w, c;  // [..., K]; [2I, K] (gate rows, then up rows); [..., I]
  Tensor scratch;  // [..., 2I] of c's dtype for the unfused path, or empty (a buffer of the call's own)
};

// Registers matmul_silu_and_mul with the dispatcher (called by register_matmul_ops).
void register_matmul_silu_and_mul_op();

// Registers matmul_fp8 with the dispatcher (called by register_matmul_ops).
void register_matmul_fp8_op();

// Registers bmm and group_gemm with the dispatcher (called by register_matmul_ops).
void register_batched_matmul_ops();

// The autotuner's key for the tuned matmul case (16-bit, B as [N, K]): M rounded up to a power of two, N and K
// exact. `tessera tune` and `tessera bench` use it to report what was chosen.
dispatch::autotune::Key matmul_tune_key(DType dtype, int64_t m, int64_t n, int64_t k);

#define TESSERA_MATMUL_BACKEND_DECLS                                              \
  void matmul(const MatmulArgs& args, const dispatch::Options& opt);             \
  void bmm(const BmmArgs& args, const dispatch::Options& opt);                   \
  void group_gemm(const GroupGemmArgs& args, const dispatch::Options& opt);      \
  void matmul_fp8(const MatmulFp8Args& args, const dispatch::Options& opt);      \
  void matmul_silu_and_mul(const MatmulSiluAndMulArgs& args, const dispatch::Options& opt);
namespace reference { TESSERA_MATMUL_BACKEND_DECLS }
namespace tile_host { TESSERA_MATMUL_BACKEND_DECLS }
namespace tile_cuda { TESSERA_MATMUL_BACKEND_DECLS }
#undef TESSERA_MATMUL_BACKEND_DECLS

}  // namespace tessera::ops
