// `tessera bench [op...] [--shapes S,...] [--out DIR] [--dtype bf16|f16] [--quick] [--batch-us US]`: tessera's
// ops on the GPU against the ceilings and a baseline measured in the same run (see src/bench/gpu_bench.h);
// prints a table and writes bench.json, bench.md and bench.svg into --out.
#include <cstdio>
#include <string>
#include <vector>

#include "apps/tessera/commands.h"
#include "bench/gpu_bench.h"
#include "tessera/runtime/error.h"

namespace tessera::cli {

void add_bench_command(CLI::App& app) {
  struct Args {
    std::vector<std::string> ops, shapes;
    std::string out = "bench-out", dtype = "bf16";
    bool quick = false;
    double batch_us = 200;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("bench", "Time ops on the GPU against the measured ceilings (and cuBLAS for matmul, bmm, group_gemm)");
  cmd->add_option("op", args->ops,
                  "ops to time (default: all of matmul, matmul_fp8, bmm, group_gemm, rms_norm, rms_norm_residual, "
                  "layer_norm, softmax, gelu, silu_and_mul, rope, embedding, fmha, fmha_fp8, fmha_backward, "
                  "fmha_decode, mla_decode, qkv_rope_append)");
  cmd->add_option("--shapes", args->shapes,
                  "shapes instead of the default sweeps, each for the ops of its rank: matmul(_fp8) MxNxK; norms, "
                  "softmax, activations, rope, embedding ROWSxCOLS; fmha(_fp8, _backward) BxHxSxD; fmha_decode "
                  "BxSxHqxHkvxD; or for one op, op:AxB... (bmm:BxMxNxK, group_gemm:GxMxNxK, mla_decode:BxS, "
                  "qkv_rope_append:KxHqxHkvxD, "
                  "fmha:BxHxSxDqkxDv)")
      ->delimiter(',');
  cmd->add_option("--out", args->out, "directory for bench.json, bench.md, bench.svg")->capture_default_str();
  cmd->add_option("--dtype", args->dtype, "bf16 or f16")->capture_default_str();
  cmd->add_flag("--quick", args->quick, "a tiny sweep with short timings (a smoke test)");
  cmd->add_option("--batch-us", args->batch_us,
                  "length of a timed batch of back-to-back calls in microseconds: short batches charge the first "
                  "call's start on an idle GPU to few calls; 2000 times calls in a steady stream")
      ->capture_default_str();
  cmd->callback([args] {
    const auto dtype = dtype_from_name(args->dtype);
    if (!dtype) invalid_argument("--dtype " + args->dtype + " is not a dtype");
    bench::BenchOptions opt;
    opt.ops = args->ops;
    opt.shapes = args->shapes;
    opt.dtype = *dtype;
    opt.quick = args->quick;
    opt.batch_us = args->batch_us;
    opt.progress = [](const std::string& line) {
      std::fprintf(stderr, "%s\n", line.c_str());
      std::fflush(stderr);
    };
    const bench::Report report = bench::run_benchmarks(opt);
    std::printf("%s", bench::to_text(report).c_str());
    for (const auto& path : bench::write_report(report, args->out)) std::printf("wrote %s\n", path.c_str());
    for (const auto& row : report.rows)
      if (row.note.find("MISMATCH") != std::string::npos) set_exit_code(1);
  });
}

}  // namespace tessera::cli
