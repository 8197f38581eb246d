// The kernel trace's host interface in a build that records none (the default): asking for a trace is a
// clear error naming the build option, and launches get empty slots. A traced build is checked on the GPU
// (tests/gpu/test_trace_gpu.cpp).
#include <gtest/gtest.h>

#include <string>

#include "tessera/runtime/error.h"
#include "tessera/tile/cuda/trace.h"

namespace tessera::testing {
namespace {
namespace trace = tile::cuda::trace;

TEST(KernelTrace, UntracedBuildSaysHowToGetOneAndRecordsNothing) {
  if (trace::available()) GTEST_SKIP() << "this build records traces";
  try {
    trace::open(1024);
    ADD_FAILURE() << "open succeeded in a build without traces";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::unsupported);
    EXPECT_NE(std::string(e.what()).find("TESSERA_TILE_TRACE"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(trace::is_open());
  EXPECT_EQ(trace::reserve("kernel", 8).records, nullptr);
  EXPECT_THROW(trace::write_and_close("/nonexistent/trace.json"), Error);
}

}  // namespace
}  // namespace tessera::testing
