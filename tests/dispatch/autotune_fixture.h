// A test fixture for the autotuner: a fresh cache directory per test, every setting restored afterwards.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tessera/dispatch/autotune.h"

namespace tessera::testing {

class AutotuneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    namespace fs = std::filesystem;
    std::string pattern = (fs::temp_directory_path() / "tessera-autotune-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    if (const char* old = std::getenv("TESSERA_CACHE_DIR")) saved_dir_ = old;
    ::setenv("TESSERA_CACHE_DIR", dir_.c_str(), 1);
    reset();
  }
  void TearDown() override {
    reset();
    if (saved_dir_) ::setenv("TESSERA_CACHE_DIR", saved_dir_->c_str(), 1);
    else ::unsetenv("TESSERA_CACHE_DIR");
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  static void reset() {
    namespace at = dispatch::autotune;
    at::set_timer(nullptr);
    at::set_enabled(std::nullopt);
    at::force("matmul", "");
    at::force("test_op", "");
    at::force("fmha", "");
    at::force("fmha_varlen", "");
    at::force("matmul_silu_and_mul", "");
    at::clear_memory_cache();
  }
  std::string cache_file() const { return dir_ + "/autotune.json"; }

  std::string dir_;
  std::optional<std::string> saved_dir_;
};

}  // namespace tessera::testing
