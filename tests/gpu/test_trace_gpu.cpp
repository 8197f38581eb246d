// The kernel trace in a build configured with -DTESSERA_TILE_TRACE=ON (skipped in others): every block of a
// launch records a start, a ready and an end in that order, on a multiprocessor of the device, and the table
// names the kernel.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_util.h"
#include "tessera/ops/norm.h"
#include "tessera/tile/cuda/trace.h"

namespace tessera::testing {
namespace {
namespace trace = tile::cuda::trace;

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::stringstream s(line);
  for (std::string field; std::getline(s, field, sep);) out.push_back(field);
  return out;
}

TEST(KernelTraceGpu, BlocksRecordStartReadyEndInOrder) {
  TESSERA_REQUIRE_GPU();
  if (!trace::available()) GTEST_SKIP() << "skipped: this build records no traces";
  const int64_t rows = 37, cols = 4096;
  const Tensor x = random_tensor({rows, cols}, DType::bf16, Device::cuda());
  const Tensor w = random_tensor({cols}, DType::bf16, Device::cuda());
  const Tensor y = Tensor::empty({rows, cols}, DType::bf16, Device::cuda());
  ops::rms_norm(x, w, y, 1e-5f);  // modules loaded and tuned before the trace
  synchronize(Device::cuda());
  expect_invalid_argument([] { trace::open(0); }, "room for 0");
  trace::open(1 << 16);
  EXPECT_TRUE(trace::is_open());
  ops::rms_norm(x, w, y, 1e-5f);
  ops::rms_norm(x, w, y, 1e-5f);
  const std::string path = (std::filesystem::temp_directory_path() / "tessera_trace_test.json").string();
  trace::write_and_close(path);
  EXPECT_FALSE(trace::is_open());
  std::ifstream tsv(path + ".tsv");
  std::string line;
  ASSERT_TRUE(std::getline(tsv, line));
  const auto header = split(line, '\t');
  ASSERT_EQ(header.size(), 15u);
  int launches = 0;
  double previous_end = -1;
  while (std::getline(tsv, line)) {
    const auto f = split(line, '\t');
    ASSERT_EQ(f.size(), 15u) << line;
    ++launches;
    EXPECT_EQ(f[1], f[2]) << "every block ran and recorded: " << line;
    const double first_start = std::stod(f[4]), first_ready = std::stod(f[6]), last_ready = std::stod(f[7]),
                 first_end = std::stod(f[8]), last_end = std::stod(f[9]);
    EXPECT_LE(first_start, first_ready) << line;
    EXPECT_LE(last_ready, last_end) << line;
    EXPECT_LE(first_end, last_end) << line;
    EXPECT_GE(first_start, 0) << line;
    EXPECT_GT(last_end, previous_end) << "the second launch ends after the first: " << line;
    previous_end = last_end;
    EXPECT_NE(f[14].find("RmsNorm"), std::string::npos) << line;
  }
  EXPECT_EQ(launches, 2);
  std::remove(path.c_str());
  std::remove((path + ".tsv").c_str());
}

}  // namespace
}  // namespace tessera::testing
