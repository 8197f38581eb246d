// Workspaces: grow-only named buffers, and the count of replacements that CUDA graph owners watch.
#include <gtest/gtest.h>

#include "tessera/runtime/workspace.h"

namespace tessera::testing {

TEST(Workspace, ReusedWhileLargeEnoughReplacedAndCountedWhenGrown) {
  const Device cpu = Device::cpu();
  void* first = workspace("test.workspace.grow", 1000, cpu, nullptr);
  const uint64_t before = workspace_generation();
  EXPECT_EQ(workspace("test.workspace.grow", 1000, cpu, nullptr), first);
  EXPECT_EQ(workspace("test.workspace.grow", 10, cpu, nullptr), first);
  EXPECT_EQ(workspace_generation(), before) << "reuse is not a replacement";
  void* other = workspace("test.workspace.other", 64, cpu, nullptr);  // a new name: an allocation, not a replacement
  EXPECT_NE(other, first);
  EXPECT_EQ(workspace_generation(), before);
  workspace("test.workspace.grow", 1 << 20, cpu, nullptr);
  EXPECT_EQ(workspace_generation(), before + 1);
}

TEST(Workspace, ZeroedWhenAllocatedOrGrown) {
  const Device cpu = Device::cpu();
  auto* a = static_cast<unsigned char*>(zeroed_workspace("test.workspace.zeroed", 256, cpu, nullptr));
  for (int i = 0; i < 256; ++i) ASSERT_EQ(a[i], 0);
  a[7] = 1;  // users leave it as they found it; this one does not, and growing starts from zeros again
  auto* b = static_cast<unsigned char*>(zeroed_workspace("test.workspace.zeroed", 4096, cpu, nullptr));
  for (int i = 0; i < 4096; ++i) ASSERT_EQ(b[i], 0);
}

}  // namespace tessera::testing
