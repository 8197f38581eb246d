// The benchmark report writers (JSON, markdown, SVG, text) on fake timings, the shape parser, and the
// harness's refusal without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/cublas_loader.h"
#include "bench/gpu_bench.h"
#include "bench/report.h"
#include "tessera/runtime/device.h"
#include "tessera/runtime/error.h"

namespace tessera::bench {
namespace {

Report fake_report() {
  Report r;
  r.device = "Fake GPU <test> (100 SMs, 50 MB L2)";
  r.dtype = "bf16";
  r.date = "2026-11-23T00:00:00Z";
  r.batch_us = 2000;
  r.ceilings = {4000.0, 800.0, "cuBLAS bf16 8192^3"};
  r.notes = {"a note"};
  Row mm;  // 2 * 1024^3 flops in 10 us = 214.7 TFLOP/s; baseline 15 us
  mm.op = "matmul";
  mm.shape = "M=1024 N=1024 K=1024";
  mm.us = 10.0;
  mm.flops = 2.0 * 1024 * 1024 * 1024;
  mm.bytes = 3.0 * 1024 * 1024 * 2;
  mm.baseline_us = 15.0;
  mm.baseline = "cuBLAS";
  mm.note = "config bm64|x";
  Row norm;  // 64 MB in 20 us = 3355 GB/s; no baseline
  norm.op = "rms_norm";
  norm.shape = "rows=4096 cols=4096";
  norm.us = 20.0;
  norm.bytes = 4096.0 * 4096 * 2 * 2;
  r.rows = {mm, norm};
  return r;
}

TEST(BenchReport, DerivedNumbers) {
  const Report r = fake_report();
  const Row& mm = r.rows[0];
  EXPECT_NEAR(mm.tflops(), 2.0 * 1024 * 1024 * 1024 / 10e-6 / 1e12, 1e-9);
  EXPECT_NEAR(mm.gbps(), 3.0 * 1024 * 1024 * 2 / 10e-6 / 1e9, 1e-9);
  EXPECT_NEAR(*mm.speedup(), 1.5, 1e-12);
  EXPECT_NEAR(mm.ceiling_fraction(r.ceilings), mm.tflops() / 800.0, 1e-12);  // compute-bound: TC ceiling binds
  EXPECT_NEAR(mm.baseline_fraction(r.ceilings), mm.tflops() / 1.5 / 800.0, 1e-12);
  const Row& norm = r.rows[1];
  EXPECT_FALSE(norm.speedup());
  EXPECT_EQ(norm.tflops(), 0.0);
  EXPECT_NEAR(norm.ceiling_fraction(r.ceilings), 4096.0 * 4096 * 4 / 20e-6 / 1e9 / 4000.0, 1e-12);
  Row zero;
  EXPECT_EQ(zero.ceiling_fraction(r.ceilings), 0.0);
}

TEST(BenchReport, Json) {
  const Report r = fake_report();
  const auto doc = nlohmann::json::parse(to_json(r));
  EXPECT_EQ(doc.at("device"), r.device);
  EXPECT_EQ(doc.at("dtype"), "bf16");
  EXPECT_DOUBLE_EQ(doc.at("ceilings").at("copy_gbps").get<double>(), 4000.0);
  EXPECT_DOUBLE_EQ(doc.at("ceilings").at("tensor_tflops").get<double>(), 800.0);
  ASSERT_EQ(doc.at("rows").size(), 2u);
  const auto& mm = doc.at("rows")[0];
  EXPECT_EQ(mm.at("op"), "matmul");
  EXPECT_DOUBLE_EQ(mm.at("us").get<double>(), 10.0);
  EXPECT_NEAR(mm.at("tflops").get<double>(), 214.748, 1e-3);
  EXPECT_NEAR(mm.at("speedup").get<double>(), 1.5, 1e-12);
  EXPECT_NEAR(mm.at("tensor_fraction").get<double>(), 214.748 / 800, 1e-5);
  EXPECT_EQ(mm.at("baseline"), "cuBLAS");
  EXPECT_DOUBLE_EQ(mm.at("baseline_us").get<double>(), 15.0);
  const auto& norm = doc.at("rows")[1];
  EXPECT_FALSE(norm.contains("baseline_us"));
  EXPECT_FALSE(norm.contains("tensor_fraction"));
  EXPECT_NEAR(norm.at("copy_fraction").get<double>(), 4096.0 * 4096 * 4 / 20e-6 / 1e9 / 4000.0, 1e-9);
  EXPECT_EQ(doc.at("notes")[0], "a note");
  EXPECT_DOUBLE_EQ(doc.at("batch_us").get<double>(), 2000.0);
  Report unrecorded = r;
  unrecorded.batch_us = 0;
  EXPECT_FALSE(nlohmann::json::parse(to_json(unrecorded)).contains("batch_us"));
}

TEST(BenchReport, Markdown) {
  const std::string md = to_markdown(fake_report());
  std::vector<std::string> table;
  std::stringstream lines(md);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("| ", 0) == 0) table.push_back(line);
  ASSERT_EQ(table.size(), 4u) << md;  // header, separator, two rows
  // Every table line has the same number of (unescaped) cells.
  auto cells = [](const std::string& line) {
    int n = 0;
    for (size_t i = 0; i < line.size(); ++i)
      if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++n;
    return n;
  };
  for (const auto& line : table) EXPECT_EQ(cells(line), cells(table[0])) << line;
  EXPECT_NE(table[2].find("| 10.00 |"), std::string::npos) << table[2];
  EXPECT_NE(table[2].find("| 214.7 |"), std::string::npos) << table[2];
  EXPECT_NE(table[2].find("26.8%"), std::string::npos) << table[2];  // 214.7 of 800 TFLOP/s
  EXPECT_NE(table[2].find("| 1.50x |"), std::string::npos) << table[2];
  EXPECT_NE(table[2].find("bm64\\|x"), std::string::npos) << table[2];
  EXPECT_NE(table[3].find("83.9%"), std::string::npos) << table[3];  // 3355 of 4000 GB/s
  EXPECT_NE(md.find("4000 GB/s"), std::string::npos);
  EXPECT_NE(md.find("- a note"), std::string::npos);
  EXPECT_NE(md.find("each batch about 2000 us long"), std::string::npos) << md;
}

TEST(BenchReport, Svg) {
  const Report r = fake_report();
  const std::string svg = to_svg(r);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(svg.find("<test>"), std::string::npos) << "unescaped text";
  EXPECT_NE(svg.find("&lt;test&gt;"), std::string::npos);
  // Bars: tessera (blue) for each row plus the legend, baseline (grey) for the one row with a baseline plus the legend.
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t p = svg.find(needle); p != std::string::npos; p = svg.find(needle, p + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("fill=\"#2b6cb0\""), r.rows.size() + 1);
  EXPECT_EQ(count("fill=\"#a0aec0\""), 2u);
  EXPECT_EQ(count("<rect"), count("</rect>") + 3);  // background and two legend boxes are self-closed
  // Bar lengths are proportional to the % of the ceiling (axis 0..100%, 520 px wide).
  const std::regex bar("<rect x=\"300\" y=\"[0-9]+\" width=\"([0-9.]+)\" height=\"10\" fill=\"#2b6cb0\"><title>");
  std::vector<double> widths;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), bar); it != std::sregex_iterator(); ++it)
    widths.push_back(std::stod((*it)[1]));
  ASSERT_EQ(widths.size(), 2u);
  EXPECT_NEAR(widths[0], 520 * r.rows[0].ceiling_fraction(r.ceilings), 0.1);
  EXPECT_NEAR(widths[1], 520 * r.rows[1].ceiling_fraction(r.ceilings), 0.1);
  EXPECT_NE(svg.find(">1.50x<"), std::string::npos);
}

TEST(BenchReport, TextAndFiles) {
  const Report r = fake_report();
  const std::string text = to_text(r);
  EXPECT_NE(text.find("matmul"), std::string::npos);
  EXPECT_NE(text.find("1.50x"), std::string::npos);
  EXPECT_EQ(text_row(r.rows[1], r.ceilings).back(), '\n');
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / "tessera-bench-XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  const auto paths = write_report(r, dir + "/sub");
  ASSERT_EQ(paths.size(), 3u);
  const std::string want[] = {to_json(r), to_markdown(r), to_svg(r)};
  for (size_t i = 0; i < 3; ++i) {
    std::ifstream in(paths[i]);
    std::stringstream s;
    s << in.rdbuf();
    EXPECT_EQ(s.str(), want[i]) << paths[i];
  }
  fs::remove_all(dir);
}

TEST(BenchShapes, ParseDims) {
  EXPECT_EQ(parse_dims("16x4096x4096", "shape"), (std::vector<long long>{16, 4096, 4096}));
  EXPECT_EQ(parse_dims("7", "shape"), (std::vector<long long>{7}));
  for (const char* bad : {"", "16x", "x16", "ax2", "0x3", "1x-2", "1xx2", "99999999999999x1"})
    EXPECT_THROW(parse_dims(bad, "shape"), Error) << bad;
}

TEST(BenchHarness, RefusesWithoutAGpu) {
  if (cuda_available()) GTEST_SKIP() << "a GPU is present";
  try {
    run_benchmarks({});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::unsupported);
    EXPECT_NE(std::string(e.what()).find("GPU"), std::string::npos) << e.what();
  }
}

// Bad options are refused by name before any GPU is looked for, on any machine.
TEST(BenchHarness, ChecksOptionsWithoutAGpu) {
  const auto ops = bench_ops();
  for (const char* op : {"matmul", "matmul_fp8", "bmm", "group_gemm", "layer_norm", "silu_and_mul", "fmha", "fmha_fp8",
                         "fmha_backward", "fmha_decode", "mla_decode"})
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op;
  EXPECT_EQ(check_options({}), ops);
  EXPECT_EQ(shape_rank("matmul"), 3);
  EXPECT_EQ(shape_rank("layer_norm"), 2);
  EXPECT_EQ(shape_rank("fmha"), 4);
  EXPECT_EQ(shape_rank("fmha_decode"), 5);
  EXPECT_EQ(shape_rank("bmm"), 4);
  EXPECT_EQ(shape_rank("mla_decode"), 2);
  const ShapeSpec bmm = parse_shape_spec("bmm:8x512x256x64");
  EXPECT_EQ(bmm.op, "bmm");
  EXPECT_EQ(bmm.dims, (std::vector<long long>{8, 512, 256, 64}));
  EXPECT_EQ(parse_shape_spec("4096x4096").op, "");
  EXPECT_THROW(parse_shape_spec("bmm:8x512"), Error);
  // Prefill attention may name its value head dim, written for its op only (5 numbers are fmha_decode's rank).
  EXPECT_EQ(parse_shape_spec("fmha:4x16x4096x192x128").dims, (std::vector<long long>{4, 16, 4096, 192, 128}));
  EXPECT_THROW(parse_shape_spec("fmha_backward:4x16x4096x192x128"), Error);
  EXPECT_THROW(parse_shape_spec("fmha:4x16x4096x192x128x1"), Error);
  EXPECT_THROW(parse_shape_spec("flash:8x512"), Error);
  EXPECT_EQ(parse_shape_spec("mla_decode:64x4096x16").dims, (std::vector<long long>{64, 4096, 16}));  // 16 query heads
  EXPECT_THROW(parse_shape_spec("mla_decode:64x4096x16x1"), Error);
  EXPECT_THROW(parse_shape_spec("mla_decode:64x4096x0"), Error);
  auto refused = [](BenchOptions o, const std::string& needle) {
    try {
      run_benchmarks(o);
      ADD_FAILURE() << "no error for " << needle;
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::invalid_argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  BenchOptions o;
  o.ops = {"layer_norm", "flash"};
  refused(o, "unknown op 'flash'");
  o = {};
  o.shapes = {"1x2x3x4x5x6"};
  refused(o, "BxSxHqxHkvxD");
  o = {};
  o.shapes = {"4096"};
  refused(o, "ROWSxCOLS");
  o = {};
  o.shapes = {"group_gemm:8x512x4096"};
  refused(o, "group_gemm takes 4 numbers");
  o = {};
  o.dtype = DType::f32;
  refused(o, "--dtype");
  for (double us : {0.0, -5.0, 2e5, std::nan("")}) {
    o = {};
    o.batch_us = us;
    refused(o, "--batch-us");
  }
}

// Where the CUDA toolkit's cuBLAS is installed, it loads and its four entry points resolve; whether a handle
// can be created depends on a GPU. Elsewhere the reason names the places tried.
TEST(BenchCublas, LoadsOrSaysWhy) {
  Cublas cublas;
  if (cublas.available()) {
    EXPECT_FALSE(cublas.path().empty());
    return;
  }
  ASSERT_FALSE(cublas.why().empty());
  if (std::filesystem::exists("/usr/local/cuda/lib64/libcublas.so.13")) {
    EXPECT_FALSE(cublas.path().empty()) << cublas.why();
    EXPECT_NE(cublas.why().find("cublasCreate failed"), std::string::npos) << cublas.why();
  } else {
    EXPECT_NE(cublas.why().find("TESSERA_CUBLAS_PATH"), std::string::npos) << cublas.why();
  }
  EXPECT_FALSE(cublas.matmul_nk(nullptr, nullptr, nullptr, 1, 1, 1, DType::bf16, nullptr));
}

}  // namespace
}  // namespace tessera::bench
