// `tessera bench` on the GPU: times tessera's ops over a shape sweep next to a baseline library and the
// machine's ceilings, all measured in the same run.
//
// Method: random data; inputs (and outputs) rotated over enough copies that one round exceeds the L2 cache
// three times over, so every call reads from DRAM as it would inside a model step; warm-up, then CUDA events
// around batches of back-to-back calls (a scratch write queued before each batch keeps the GPU busy while the
// host enqueues it, hiding launch overhead as a steady stream or a CUDA graph would), and the median of the
// per-call batch averages over many batches. Ceilings: device-to-device copy bandwidth (bytes read +
// written) and cuBLAS's dense 16-bit rate on 8192^3 (4096^3 with quick). The matmul baseline is cuBLAS
// (cublasGemmEx, fp32 accumulation, y = x @ w^T with w as [N, K]), loaded at run time (bench/cublas_loader.h);
// without it the run goes on without a baseline and says so. Memory-bound ops are measured against the copy
// bandwidth.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "bench/report.h"
#include "tessera/runtime/dtype.h"
#include "tessera/runtime/tensor.h"

namespace tessera::bench {

struct BenchOptions {
  std::vector<std::string> ops;     // empty: every op of bench_ops()
  // Empty: each op's default sweep. Each op takes the shapes of its rank: matmul and matmul_fp8 "MxNxK"; the
  // norms, softmax, gelu, silu_and_mul, rope and embedding "ROWSxCOLS"; fmha, fmha_fp8 and fmha_backward
  // "BxHxSxD"; fmha_decode "BxSxHqxHkvxD"; and any op its own "op:AxB..." (bmm, group_gemm and mla_decode only
  // those: "bmm:BxMxNxK", "group_gemm:GxMxNxK", "mla_decode:BxS").
  std::vector<std::string> shapes;
  DType dtype = DType::bf16;        // f16 or bf16
  bool quick = false;               // a tiny sweep and short timings (a smoke test)
  // How long a timed batch of back-to-back calls lasts, in microseconds (1 to 100000): short batches charge a
  // batch's first start (on an idle GPU) to few calls, long ones time calls in a steady stream.
  double batch_us = 200;
  std::function<void(const std::string&)> progress;  // one line per measurement; may be empty
};

std::vector<std::string> bench_ops();  // "matmul", "matmul_fp8", "bmm", ... "mla_decode"
// One --shapes entry: "AxBxC" (the ops of that rank take it) or "op:AxBxC" (that op alone).
struct ShapeSpec {
  std::string op;  // empty: by rank
  std::vector<long long> dims;
};
// Parses a --shapes entry; throws invalid_argument for an unknown op or a rank that is not the op's.
ShapeSpec parse_shape_spec(const std::string& text);
// How many numbers an op's shapes have: 3 for matmul and matmul_fp8, 2 for the row ops and mla_decode (B x S),
// 4 for bmm (B x M x N x K), group_gemm (G x M x N x K) and the fmha family (B x H x S x D), 5 for fmha_decode.
int shape_rank(const std::string& op);
// Checks the options (dtype, op names, shapes) without a GPU; returns the ops to run.
std::vector<std::string> check_options(const BenchOptions& options);

// Runs the benchmarks. Throws unsupported when there is no GPU, invalid_argument for an unknown op, dtype or
// malformed shape.
Report run_benchmarks(const BenchOptions& options);

// Fills a CUDA tensor (f32, f16, bf16) with uniform values in [-1, 1) from `seed`.
void fill_random(const Tensor& t, uint64_t seed);

// Parses "AxBxC" into its numbers (any count >= 1); throws invalid_argument naming `what` otherwise.
std::vector<long long> parse_dims(const std::string& text, const std::string& what);

}  // namespace tessera::bench
