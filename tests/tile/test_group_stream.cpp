// The grouped k loop of the few-rows kernels (tessera/tile/group_stream.h): each whole group asked for once and
// before it is used, in order; the first group before the wait for the kernel before only when the caller says
// the copies read nothing that kernel writes; and where the whole groups end. A stand-in block records its wait
// (the host's wait_for_predecessor does nothing) so the order can be seen.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tessera/tile/group_stream.h"

namespace tessera::testing {
namespace {

struct RecordingBlock {
  std::vector<std::string>* log;
};
void wait_for_predecessor(RecordingBlock& blk) { blk.log->push_back("wait"); }

std::vector<std::string> stream(int64_t extent, int64_t group, bool settled, int64_t* end = nullptr) {
  std::vector<std::string> log;
  RecordingBlock blk{&log};
  tile::GroupStream groups(extent, group);
  const auto ask = [&](int64_t k0) { log.push_back("ask " + std::to_string(k0)); };
  const auto use = [&](int64_t k0) { log.push_back("use " + std::to_string(k0)); };
  groups.start(blk, settled, ask);
  log.push_back("after");
  const int64_t done = groups.run(ask, use);
  if (end != nullptr) *end = done;
  return log;
}

using Log = std::vector<std::string>;

TEST(GroupStream, SettledAsksForTheFirstGroupBeforeTheWait) {
  int64_t end = -1;
  EXPECT_EQ(stream(2048, 1024, true, &end), (Log{"ask 0", "wait", "after", "use 0", "ask 1024", "use 1024"}));
  EXPECT_EQ(end, 2048);
}

TEST(GroupStream, UnsettledWaitsBeforeAnyAsk) {
  int64_t end = -1;
  EXPECT_EQ(stream(2048, 1024, false, &end), (Log{"wait", "after", "ask 0", "use 0", "ask 1024", "use 1024"}));
  EXPECT_EQ(end, 2048);
}

TEST(GroupStream, StopsAtTheLastWholeGroup) {
  int64_t end = -1;
  // 3000 = two groups of 1024 and 952 left for the caller's tail.
  EXPECT_EQ(stream(3000, 1024, true, &end), (Log{"ask 0", "wait", "after", "use 0", "ask 1024", "use 1024"}));
  EXPECT_EQ(end, 2048);
  // Shorter than a group: nothing asked early, nothing streamed; the caller takes it all.
  EXPECT_EQ(stream(1000, 1024, true, &end), (Log{"wait", "after"}));
  EXPECT_EQ(end, 0);
  EXPECT_EQ(stream(0, 1024, true, &end), (Log{"wait", "after"}));
  EXPECT_EQ(end, 0);
}

TEST(GroupStream, OneGroupExactly) {
  EXPECT_EQ(stream(7, 7, true), (Log{"ask 0", "wait", "after", "use 0"}));
  EXPECT_EQ(stream(7, 7, false), (Log{"wait", "after", "ask 0", "use 0"}));
}

}  // namespace
}  // namespace tessera::testing
