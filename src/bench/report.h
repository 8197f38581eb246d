// Benchmark results and their writers: JSON (for tools), markdown (for people) and an SVG plot, all from one
// Report. No GPU needed here: the measurements come from bench/gpu_bench.h, or from a test's fake timings.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace tessera::bench {

// The machine's limits, measured in the same run as the ops.
struct Ceilings {
  double copy_gbps = 0;       // device-to-device copy, bytes read + written per second / 1e9 (0: not measured)
  double tensor_tflops = 0;   // dense 16-bit tensor-core rate from the baseline library (0: not measured)
  std::string tensor_source;  // e.g. "cuBLAS bf16 8192^3"
};

// One op at one shape.
struct Row {
  std::string op;        // "matmul", "rms_norm"
  std::string shape;     // "M=16 N=4096 K=4096"
  double us = 0;         // median time of tessera's kernel
  double flops = 0;      // useful floating-point operations of one call (0: memory-bound op)
  double bytes = 0;      // bytes one call must read + write at least
  std::optional<double> baseline_us;  // the baseline library in the same run
  std::string baseline;               // its name, e.g. "cuBLAS"
  std::string note;                   // e.g. "baseline differs: max rel err 3e-2"

  double tflops() const { return us > 0 ? flops / us * 1e-6 : 0; }
  double gbps() const { return us > 0 ? bytes / us * 1e-3 : 0; }
  // Fraction of the binding ceiling reached: the larger of compute and bandwidth use (a roofline view).
  double ceiling_fraction(const Ceilings& c) const;
  double baseline_fraction(const Ceilings& c) const;  // the same for the baseline (0 without one)
  // Speed relative to the baseline: baseline time / our time (> 1: faster than the baseline).
  std::optional<double> speedup() const;
};

struct Report {
  std::string device;  // "NVIDIA H200 (132 SMs, 60 MB L2)"
  std::string dtype;   // "bf16"
  std::string date;    // ISO 8601, UTC
  double batch_us = 0;  // the timed batches' length (BenchOptions::batch_us); 0: not recorded
  Ceilings ceilings;
  std::vector<Row> rows;
  std::vector<std::string> notes;  // e.g. "cuBLAS not found: no baseline"
};

std::string to_json(const Report& report);
std::string to_markdown(const Report& report);
// Horizontal bars per shape: % of the binding ceiling for tessera and for the baseline, with the speed ratio
// written beside each pair.
std::string to_svg(const Report& report);
// A plain-text table for the terminal.
std::string to_text(const Report& report);
std::string text_header();
std::string text_row(const Row& row, const Ceilings& ceilings);  // one line, newline-terminated
// Writes bench.json, bench.md and bench.svg into `dir` (created if needed); returns their paths.
std::vector<std::string> write_report(const Report& report, const std::string& dir);

}  // namespace tessera::bench
