// Workspaces grown while a stream is being captured into a CUDA graph: nothing waits for the device and
// nothing is freed (captured work may read the old buffer), and a zeroed one is zero at once.
#include <gtest/gtest.h>

#include <vector>

#include "common/test_util.h"
#include "tessera/runtime/cuda_graph.h"
#include "tessera/runtime/workspace.h"

namespace tessera::testing {
namespace {

std::vector<unsigned char> bytes_of(const void* data, size_t n) {
  std::vector<unsigned char> out(n, 0xAB);
  copy_bytes(out.data(), Device::cpu(), data, Device::cuda(), n);
  return out;
}

TEST(WorkspaceGpu, GrowsDuringACaptureKeepingTheOldBufferAndTheGeneration) {
  TESSERA_REQUIRE_GPU();
  const Device gpu = Device::cuda();
  const Stream stream(gpu);
  void* small = workspace("test.capture.plain", 256, gpu, stream.handle());
  void* small_zeroed = zeroed_workspace("test.capture.zeroed", 256, gpu, stream.handle());
  const uint64_t generation = workspace_generation();
  CudaGraph graph;
  graph.begin_capture(stream.handle());
  void* grown = nullptr;
  void* grown_zeroed = nullptr;
  try {
    grown = workspace("test.capture.plain", size_t(3) << 20, gpu, stream.handle());
    grown_zeroed = zeroed_workspace("test.capture.zeroed", size_t(5) << 20, gpu, stream.handle());
    // Reused inside the same capture: no second allocation.
    EXPECT_EQ(workspace("test.capture.plain", 1000, gpu, stream.handle()), grown);
  } catch (...) {
    graph.abandon_capture();
    throw;
  }
  graph.end_capture();
  graph.launch(stream.handle());
  stream.synchronize();
  EXPECT_NE(grown, small);
  EXPECT_NE(grown_zeroed, small_zeroed);
  EXPECT_EQ(workspace_generation(), generation) << "a buffer was freed during the capture";
  for (unsigned char b : bytes_of(grown_zeroed, size_t(5) << 20)) ASSERT_EQ(b, 0);
  for (unsigned char b : bytes_of(small_zeroed, 256)) ASSERT_EQ(b, 0);  // the old one is still readable memory
  // Outside a capture, growing replaces the buffer and counts it.
  workspace("test.capture.plain", size_t(7) << 20, gpu, stream.handle());
  EXPECT_EQ(workspace_generation(), generation + 1);
}

}  // namespace
}  // namespace tessera::testing
