// Backend selection, fallback with a single warning, and fallback as an error.
#include <gtest/gtest.h>

#include "tessera/dispatch/dispatch.h"

namespace tessera::dispatch {
namespace {

struct Args { int value; };

struct Restore {
  ~Restore() { set_backend(std::nullopt); set_fallback_enabled(true); }
};

Op<Args> make_op(std::vector<Backend>& ran) {
  Op<Args> op("test_op");
  op.add(Backend::reference, [&ran](const Args&, const Options&) { ran.push_back(Backend::reference); });
  op.add(Backend::tile_host, [&ran](const Args&, const Options&) { ran.push_back(Backend::tile_host); },
         [](const Args& a) -> Refusal { if (a.value < 0) return std::string("negative values unsupported"); return std::nullopt; });
  return op;
}

TEST(Dispatch, NaturalBackendPerCallAndGlobal) {
  Restore restore;
  std::vector<Backend> ran;
  auto op = make_op(ran);
  EXPECT_EQ(op({1}, Device::cpu()), Backend::tile_host);
  EXPECT_EQ(op({1}, Device::cpu(), {Backend::reference}), Backend::reference);
  set_backend(Backend::reference);
  EXPECT_EQ(op({1}, Device::cpu()), Backend::reference);
  EXPECT_EQ(op({1}, Device::cpu(), {Backend::tile_host}), Backend::tile_host);  // per call beats global
  EXPECT_EQ(ran, (std::vector<Backend>{Backend::tile_host, Backend::reference, Backend::reference, Backend::tile_host}));
}

TEST(Dispatch, FallbackWarnsOnceThenErrorsWhenDisabled) {
  Restore restore;
  std::vector<Backend> ran;
  auto op = make_op(ran);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(op({-1}, Device::cpu()), Backend::reference);
  EXPECT_EQ(op({-2}, Device::cpu()), Backend::reference);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("test_op falls back from tile-host to reference: negative values unsupported"), std::string::npos) << err;
  EXPECT_EQ(err.find("falls back", err.find("falls back") + 1), std::string::npos) << "warned twice: " << err;
  set_fallback_enabled(false);
  try {
    op({-1}, Device::cpu());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::unsupported);
    EXPECT_NE(std::string(e.what()).find("fallback disabled"), std::string::npos) << e.what();
  }
}

TEST(Dispatch, TileCudaOnCpuTensorsFallsBack) {
  Restore restore;
  std::vector<Backend> ran;
  auto op = make_op(ran);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(op({1}, Device::cpu(), {Backend::tile_cuda}), Backend::reference);
  ::testing::internal::GetCapturedStderr();
}

TEST(Dispatch, BackendNames) {
  EXPECT_EQ(backend_from_name("tile-cuda"), Backend::tile_cuda);
  EXPECT_EQ(backend_from_name("reference"), Backend::reference);
  EXPECT_FALSE(backend_from_name("cuda").has_value());
  EXPECT_EQ(backend_name(Backend::tile_host), "tile-host");
}

}  // namespace
}  // namespace tessera::dispatch
