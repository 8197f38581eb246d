// The autotuner on the host: selection with an injected timer, the in-memory and on-disk caches (round trip,
// version mismatch, corrupt file, concurrent writers), TESSERA_AUTOTUNE=0, forced choices, and every matmul
// configuration against the reference.
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "common/test_util.h"
#include "dispatch/autotune_fixture.h"
#include "ops/matmul/args.h"
#include "ops/matmul_cases.h"

namespace tessera::testing {
namespace {

namespace at = dispatch::autotune;

// Three candidates that record which of them launched.
struct Fake {
  std::vector<std::string> launched;
  std::vector<at::Candidate> candidates;
  Fake() {
    for (const char* name : {"slow", "fast", "middle"})
      candidates.push_back({name, [this, name] { launched.push_back(name); }});
  }
};

// A timer from a table of times by name (missing: the candidate fails); counts its calls. Sustained timings
// come from their own table where it names the candidate, else from the cold one.
struct FakeTimer {
  std::map<std::string, double> us;
  std::map<std::string, double> sustained_us = {};
  int calls = 0;
  std::vector<std::string> sustained_calls = {};
  at::Timer get() {
    return [this](const at::Candidate& c, StreamHandle, at::Timing timing) -> std::optional<double> {
      ++calls;
      c.launch();
      if (timing == at::Timing::sustained) {
        sustained_calls.push_back(c.name);
        if (auto it = sustained_us.find(c.name); it != sustained_us.end()) return it->second;
      }
      auto it = us.find(c.name);
      if (it == us.end()) return std::nullopt;
      return it->second;
    };
  }
};

at::Key key(const std::string& shape = "m16_n32_k64") { return {"FakeGPU/8sm", "test_op", "bf16", shape}; }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_F(AutotuneTest, PicksTheFastestAndRemembersIt) {
  Fake f;
  FakeTimer t{{{"slow", 30.0}, {"fast", 10.0}, {"middle", 20.0}}};
  at::set_timer(t.get());
  EXPECT_EQ(at::select(key(), f.candidates, 0, nullptr).name, "fast");
  EXPECT_EQ(t.calls, 3);
  EXPECT_EQ(f.launched, (std::vector<std::string>{"slow", "fast", "middle"}));
  // Second use of the key: from memory, nothing timed.
  EXPECT_EQ(at::select_index(key(), f.candidates, 0, nullptr), 1u);
  EXPECT_EQ(t.calls, 3);
  // Another shape class is another key.
  t.us["middle"] = 5.0;
  EXPECT_EQ(at::select(key("m32_n32_k64"), f.candidates, 0, nullptr).name, "middle");
  EXPECT_EQ(t.calls, 6);
  const auto mem = at::memory_entries();
  ASSERT_EQ(mem.count(key().str()), 1u);
  EXPECT_EQ(mem.at(key().str()).choice, "fast");
  EXPECT_DOUBLE_EQ(mem.at(key().str()).us, 10.0);
  EXPECT_EQ(mem.at(key().str()).timings.size(), 3u);
}

TEST_F(AutotuneTest, NearTiesOfLongCallsAreDecidedBySustainedTimings) {
  Fake f;
  // Cold: "fast" wins by 2%, "middle" is 4% off (both near), "slow" 10% off (not re-timed). Sustained: "middle".
  FakeTimer t{{{"slow", 1100.0}, {"fast", 1000.0}, {"middle", 1040.0}}, {{"fast", 980.0}, {"middle", 950.0}}};
  at::set_timer(t.get());
  EXPECT_EQ(at::select(key(), f.candidates, 0, nullptr).name, "middle");
  EXPECT_EQ(t.sustained_calls, (std::vector<std::string>{"fast", "middle"}));  // fastest cold first
  auto entry = at::memory_entries().at(key().str());
  EXPECT_DOUBLE_EQ(entry.us, 1040.0);  // the choice's cold time
  EXPECT_EQ(entry.timings.size(), 3u);
  EXPECT_EQ(entry.sustained, (std::map<std::string, double>{{"fast", 980.0}, {"middle", 950.0}}));
  // The sustained timings survive the file; a new process keeps the choice without timing.
  at::clear_memory_cache();
  EXPECT_EQ(at::read_cache_file(cache_file()).at(key().str()).sustained.at("middle"), 950.0);
  EXPECT_EQ(at::select(key(), f.candidates, 0, nullptr).name, "middle");
  EXPECT_EQ(t.calls, 5);
}

TEST_F(AutotuneTest, NearTiesOfShortCallsAreDecidedBySustainedTimingsInAWiderWindow) {
  Fake f;
  // Short (below kSustainedFromUs): "middle" 15% off "fast" is within kShortNearTie, "slow" 30% off is not.
  FakeTimer t{{{"slow", 13.0}, {"fast", 10.0}, {"middle", 11.5}}, {{"fast", 9.0}, {"middle", 8.0}, {"slow", 1.0}}};
  at::set_timer(t.get());
  EXPECT_EQ(at::select(key(), f.candidates, 0, nullptr).name, "middle");
  EXPECT_EQ(t.sustained_calls, (std::vector<std::string>{"fast", "middle"}));
  EXPECT_EQ(at::memory_entries().at(key().str()).sustained,
            (std::map<std::string, double>{{"fast", 9.0}, {"middle", 8.0}}));
  // The same spread on a long call is not a near-tie (kNearTie): the cold winner, nothing re-timed.
  FakeTimer u{{{"slow", 1300.0}, {"fast", 1000.0}, {"middle", 1150.0}}, {{"middle", 1.0}}};
  at::set_timer(u.get());
  EXPECT_EQ(at::select(key("m64_n32_k64"), f.candidates, 0, nullptr).name, "fast");
  EXPECT_TRUE(u.sustained_calls.empty());
}

TEST_F(AutotuneTest, ClearWinnersAreNotRetimed) {
  Fake f;
  // Short: the others are more than kShortNearTie off.
  FakeTimer t{{{"slow", 30.0}, {"fast", 10.0}, {"middle", 12.5}}, {{"middle", 1.0}}};
  at::set_timer(t.get());
  EXPECT_EQ(at::select(key(), f.candidates, 0, nullptr).name, "fast");
  // Long, but no other candidate within kNearTie.
  FakeTimer u{{{"slow", 3000.0}, {"fast", 1000.0}, {"middle", 1060.0}}, {{"middle", 1.0}}};
  at::set_timer(u.get());
  EXPECT_EQ(at::select(key("m64_n32_k64"), f.candidates, 0, nullptr).name, "fast");
  EXPECT_TRUE(t.sustained_calls.empty());
  EXPECT_TRUE(u.sustained_calls.empty());
  EXPECT_TRUE(at::memory_entries().at(key().str()).sustained.empty());
  // A near-tie whose sustained timing fails is dropped from the re-timing; the other still decides.
  FakeTimer v{{{"slow", 1000.0}, {"fast", 1000.0}, {"middle", 1010.0}}, {}};
  v.sustained_us = {{"middle", 900.0}};
  at::set_timer([&](const at::Candidate& c, StreamHandle s, at::Timing timing) -> std::optional<double> {
    if (timing == at::Timing::sustained && c.name == "slow") return std::nullopt;
    return v.get()(c, s, timing);
  });
  EXPECT_EQ(at::select(key("m128_n32_k64"), f.candidates, 0, nullptr).name, "middle");
  EXPECT_EQ(v.sustained_calls, (std::vector<std::string>{"fast", "middle"}));
}

TEST_F(AutotuneTest, FailingCandidatesAreSkipped) {
  Fake f;
  FakeTimer t{{{"slow", 30.0}, {"middle", 20.0}}};  // "fast" fails to launch
  at::set_timer(t.get());
  EXPECT_EQ(at::select(key(), f.candidates, 0, nullptr).name, "middle");
  EXPECT_EQ(at::memory_entries().at(key().str()).timings.count("fast"), 0u);
}

TEST_F(AutotuneTest, AllFailingFallsBackToTheHeuristicAndRemembersNothing) {
  Fake f;
  FakeTimer t;  // every candidate fails
  at::set_timer(t.get());
  EXPECT_EQ(at::select_index(key(), f.candidates, 2, nullptr), 2u);
  EXPECT_TRUE(at::memory_entries().empty());
  EXPECT_FALSE(std::filesystem::exists(cache_file()));
  EXPECT_EQ(at::select_index(key(), f.candidates, 2, nullptr), 2u);
  EXPECT_EQ(t.calls, 6);  // tried again: a failure is not remembered
}

TEST_F(AutotuneTest, CacheRoundTripThroughTheFile) {
  Fake f;
  FakeTimer t{{{"slow", 3.0}, {"fast", 1.0}, {"middle", 2.0}}};
  at::set_timer(t.get());
  ASSERT_EQ(at::select(key(), f.candidates, 0, nullptr).name, "fast");
  ASSERT_TRUE(std::filesystem::exists(cache_file()));
  EXPECT_EQ(at::cache_file(), cache_file());
  const auto on_disk = at::read_cache_file(cache_file());
  ASSERT_EQ(on_disk.size(), 1u);
  EXPECT_EQ(on_disk.at(key().str()).choice, "fast");
  EXPECT_DOUBLE_EQ(on_disk.at(key().str()).timings.at("middle"), 2.0);
  // A new process (memory cleared) reads the choice from disk and times nothing.
  at::clear_memory_cache();
  EXPECT_EQ(at::select(key(), f.candidates, 0, nullptr).name, "fast");
  EXPECT_EQ(t.calls, 3);
}

TEST_F(AutotuneTest, ACachedChoiceThatIsNoLongerACandidateIsRetuned) {
  at::merge_into_cache_file(cache_file(), {{key().str(), at::Entry{"removed_config", 1.0, {}, {}, {}}}});
  Fake f;
  FakeTimer t{{{"slow", 3.0}, {"fast", 1.0}, {"middle", 2.0}}};
  at::set_timer(t.get());
  EXPECT_EQ(at::select(key(), f.candidates, 0, nullptr).name, "fast");
  EXPECT_EQ(t.calls, 3);
  EXPECT_EQ(at::read_cache_file(cache_file()).at(key().str()).choice, "fast");
}

TEST_F(AutotuneTest, AChoiceTunedBeforeACandidateWasAddedIsRetuned) {
  // Tuned when only "slow" and "middle" existed: "fast" is new, so the space is timed again.
  at::merge_into_cache_file(cache_file(), {{key().str(), at::Entry{"middle", 2.0, {{"slow", 3.0}, {"middle", 2.0}}, {}, {}}}});
  Fake f;
  FakeTimer t{{{"slow", 3.0}, {"fast", 1.0}, {"middle", 2.0}}};
  at::set_timer(t.get());
  EXPECT_EQ(at::select(key(), f.candidates, 0, nullptr).name, "fast");
  EXPECT_EQ(t.calls, 3);
  // A candidate that failed to run is remembered as such (in the file too): not new at the next look.
  FakeTimer u{{{"slow", 3.0}, {"middle", 2.0}}};
  at::set_timer(u.get());
  EXPECT_EQ(at::select(key("m8_n32_k64"), f.candidates, 0, nullptr).name, "middle");
  EXPECT_EQ(at::memory_entries().at(key("m8_n32_k64").str()).failed, (std::set<std::string>{"fast"}));
  at::clear_memory_cache();
  EXPECT_EQ(at::read_cache_file(cache_file()).at(key("m8_n32_k64").str()).failed.count("fast"), 1u);
  EXPECT_EQ(at::select(key("m8_n32_k64"), f.candidates, 0, nullptr).name, "middle");
  EXPECT_EQ(u.calls, 3);
  // A call that cannot be tuned keeps an older choice that is still offered rather than the heuristic.
  at::merge_into_cache_file(cache_file(), {{key("m4_n32_k64").str(), at::Entry{"middle", 2.0, {{"middle", 2.0}}, {}, {}}}});
  at::clear_memory_cache();
  EXPECT_EQ(at::select_index(key("m4_n32_k64"), f.candidates, 0, nullptr, at::Where::cuda, /*tunable=*/false), 2u);
  EXPECT_EQ(u.calls, 3);
}

TEST_F(AutotuneTest, AnotherVersionIsIgnoredAndReplaced) {
  {
    std::ofstream out(cache_file());
    out << R"({"schema": 1, "tessera": "0.0.0-old", "entries": {")" << key().str()
        << R"(": {"choice": "slow", "us": 1.0}}})";
  }
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(at::read_cache_file(cache_file()).empty());
  Fake f;
  FakeTimer t{{{"slow", 3.0}, {"fast", 1.0}, {"middle", 2.0}}};
  at::set_timer(t.get());
  EXPECT_EQ(at::select(key(), f.candidates, 0, nullptr).name, "fast");  // the old file's "slow" is not used
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");               // not an error, not a warning
  EXPECT_EQ(t.calls, 3);
  const std::string text = read_text(cache_file());
  EXPECT_EQ(text.find("0.0.0-old"), std::string::npos) << text;
  EXPECT_EQ(at::read_cache_file(cache_file()).size(), 1u);
  // Another schema too.
  {
    std::ofstream out(cache_file());
    out << R"({"schema": 999, "tessera": "0.1.0", "entries": {}})";
  }
  EXPECT_TRUE(at::read_cache_file(cache_file()).empty());
}

TEST_F(AutotuneTest, ACorruptFileIsIgnoredWithOneWarningAndRewritten) {
  Fake f;
  FakeTimer t{{{"slow", 3.0}, {"fast", 1.0}, {"middle", 2.0}}};
  at::set_timer(t.get());
  ASSERT_EQ(at::select(key(), f.candidates, 0, nullptr).name, "fast");
  const std::string good = read_text(cache_file());
  // Truncate the file in the middle.
  {
    std::ofstream out(cache_file(), std::ios::trunc);
    out << good.substr(0, good.size() / 2);
  }
  at::clear_memory_cache();
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(at::select(key(), f.candidates, 0, nullptr).name, "fast");  // retuned
  EXPECT_EQ(at::select(key("other"), f.candidates, 0, nullptr).name, "fast");
  EXPECT_TRUE(at::read_cache_file(cache_file()).size() == 2u);  // rewritten whole
  at::clear_memory_cache();
  {
    std::ofstream out(cache_file(), std::ios::trunc);
    out << "garbage";
  }
  EXPECT_TRUE(at::read_cache_file(cache_file()).empty());
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(t.calls, 9);
  // One warning per file, however many times it is read.
  size_t warnings = 0;
  for (size_t p = err.find("warning"); p != std::string::npos; p = err.find("warning", p + 1)) ++warnings;
  EXPECT_EQ(warnings, 1u) << err;
  EXPECT_NE(err.find(cache_file()), std::string::npos) << err;
  // A wrong-typed entry counts as corrupt too.
  {
    std::ofstream out(cache_file(), std::ios::trunc);
    out << R"({"schema": 1, "tessera": "0.1.0", "entries": {"k": {"choice": 5, "us": 1}}})";
  }
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(at::read_cache_file(cache_file()).empty());
  ::testing::internal::GetCapturedStderr();
}

at::Entry entry_for(int i) { return at::Entry{"c" + std::to_string(i % 3), double(i), {{"c0", double(i)}}, {}, {}}; }

TEST_F(AutotuneTest, ConcurrentProcessesLoseNoEntries) {
  constexpr int kProcesses = 4, kKeysEach = 20;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        for (int i = 0; i < kKeysEach; ++i) {
          const int id = p * kKeysEach + i;
          at::merge_into_cache_file(cache_file(), {{"key" + std::to_string(id), entry_for(id)}});
        }
      } catch (...) {
        code = 1;
      }
      ::_exit(code);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const auto entries = at::read_cache_file(cache_file());
  ASSERT_EQ(entries.size(), size_t(kProcesses * kKeysEach));
  for (int id = 0; id < kProcesses * kKeysEach; ++id) {
    const auto& e = entries.at("key" + std::to_string(id));
    EXPECT_EQ(e.choice, entry_for(id).choice);
    EXPECT_DOUBLE_EQ(e.us, double(id));
  }
  // No temporary files left behind.
  for (const auto& f : std::filesystem::directory_iterator(dir_))
    EXPECT_EQ(f.path().filename().string().find(".tmp."), std::string::npos) << f.path();
}

TEST_F(AutotuneTest, ConcurrentThreadsSelectingDifferentKeys) {
  FakeTimer t{{{"slow", 3.0}, {"fast", 1.0}, {"middle", 2.0}}};
  std::mutex calls_mutex;
  at::set_timer([&](const at::Candidate& c, StreamHandle, at::Timing) -> std::optional<double> {
    std::lock_guard<std::mutex> lock(calls_mutex);
    ++t.calls;
    return t.us.at(c.name);
  });
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int th = 0; th < 4; ++th)
    threads.emplace_back([&, th] {
      std::vector<at::Candidate> cands;
      for (const char* name : {"slow", "fast", "middle"}) cands.push_back({name, [] {}});
      for (int i = 0; i < 10; ++i)
        if (at::select(key(std::to_string(th) + "_" + std::to_string(i % 5)), cands, 0, nullptr).name != "fast")
          ++wrong;
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(t.calls, 4 * 5 * 3);  // each key timed once
  EXPECT_EQ(at::read_cache_file(cache_file()).size(), 20u);
}

TEST_F(AutotuneTest, DisabledUsesTheHeuristicAndNeverTimes) {
  Fake f;
  FakeTimer t{{{"slow", 3.0}, {"fast", 1.0}, {"middle", 2.0}}};
  at::set_timer(t.get());
  at::merge_into_cache_file(cache_file(), {{key().str(), at::Entry{"fast", 1.0, {}, {}, {}}}});
  ::setenv("TESSERA_AUTOTUNE", "0", 1);
  EXPECT_FALSE(at::enabled());
  EXPECT_EQ(at::select_index(key(), f.candidates, 2, nullptr), 2u);          // not even the cached choice
  EXPECT_EQ(at::select_index(key("new"), f.candidates, 0, nullptr), 0u);
  ::setenv("TESSERA_AUTOTUNE", "1", 1);
  EXPECT_TRUE(at::enabled());
  at::set_enabled(false);  // the programmatic switch beats the environment
  EXPECT_EQ(at::select_index(key("new"), f.candidates, 0, nullptr), 0u);
  ::unsetenv("TESSERA_AUTOTUNE");
  EXPECT_EQ(t.calls, 0);
  EXPECT_TRUE(f.launched.empty());
  at::set_enabled(std::nullopt);
  EXPECT_TRUE(at::enabled());  // the default
  EXPECT_EQ(at::select_index(key(), f.candidates, 2, nullptr), 1u);  // from the file
}

TEST_F(AutotuneTest, HostAndUntunableCallsUseTheHeuristic) {
  Fake f;
  FakeTimer t{{{"slow", 3.0}, {"fast", 1.0}, {"middle", 2.0}}};
  at::set_timer(t.get());
  EXPECT_EQ(at::select_index(key(), f.candidates, 2, nullptr, at::Where::host), 2u);
  EXPECT_EQ(at::select_index(key(), f.candidates, 0, nullptr, at::Where::cuda, /*tunable=*/false), 0u);
  EXPECT_EQ(t.calls, 0);
  EXPECT_TRUE(at::memory_entries().empty());
  // Once tuned, an untunable call of the same key uses the tuned choice.
  EXPECT_EQ(at::select_index(key(), f.candidates, 0, nullptr), 1u);
  EXPECT_EQ(at::select_index(key(), f.candidates, 0, nullptr, at::Where::cuda, false), 1u);
}

TEST_F(AutotuneTest, StandInsAreTimedInsteadOfTheCall) {
  Fake call, scratch;
  FakeTimer t{{{"slow", 3.0}, {"fast", 1.0}, {"middle", 2.0}}};
  at::set_timer(t.get());
  int built = 0;
  const at::StandIns stand_ins = [&] {
    ++built;
    return scratch.candidates;
  };
  // Host backends and captured streams never build them.
  EXPECT_EQ(at::select_index(key(), call.candidates, 2, nullptr, at::Where::host, stand_ins), 2u);
  EXPECT_EQ(built, 0);
  // Tuning times the stand-ins; the call's own candidates are not launched (the caller runs the choice).
  EXPECT_EQ(at::select_index(key(), call.candidates, 0, nullptr, at::Where::cuda, stand_ins), 1u);
  EXPECT_EQ(built, 1);
  EXPECT_EQ(scratch.launched, (std::vector<std::string>{"slow", "fast", "middle"}));
  EXPECT_TRUE(call.launched.empty());
  EXPECT_EQ(at::memory_entries().at(key().str()).choice, "fast");
  // Remembered: neither built nor timed again.
  EXPECT_EQ(at::select_index(key(), call.candidates, 0, nullptr, at::Where::cuda, stand_ins), 1u);
  EXPECT_EQ(built, 1);
  EXPECT_EQ(t.calls, 3);
  // Stand-ins must name the candidates, in order.
  const at::StandIns reordered = [&] {
    auto c = scratch.candidates;
    std::swap(c[0], c[1]);
    return c;
  };
  expect_invalid_argument([&] { at::select_index(key("other"), call.candidates, 0, nullptr, at::Where::cuda, reordered); },
                          "stand-ins");
  // An empty builder is an untunable call: the heuristic.
  EXPECT_EQ(at::select_index(key("third"), call.candidates, 2, nullptr, at::Where::cuda, at::StandIns{}), 2u);
  EXPECT_EQ(t.calls, 3);
}

TEST_F(AutotuneTest, ForcedChoices) {
  Fake f;
  FakeTimer t{{{"slow", 3.0}, {"fast", 1.0}, {"middle", 2.0}}};
  at::set_timer(t.get());
  at::force("test_op", "middle");
  EXPECT_EQ(at::select(key(), f.candidates, 0, nullptr, at::Where::host).name, "middle");
  EXPECT_EQ(at::select(key(), f.candidates, 0, nullptr).name, "middle");
  at::force("test_op", "nope");
  EXPECT_THROW(at::select_index(key(), f.candidates, 0, nullptr), Error);
  at::force("test_op", "");
  EXPECT_EQ(t.calls, 0);
}

TEST_F(AutotuneTest, BadArguments) {
  Fake f;
  EXPECT_THROW(at::select_index(key(), {}, 0, nullptr), Error);
  EXPECT_THROW(at::select_index(key(), f.candidates, 3, nullptr), Error);
  f.candidates[2].name = "slow";
  at::set_timer([](const at::Candidate&, StreamHandle, at::Timing) { return std::optional<double>(1.0); });
  EXPECT_THROW(at::select_index(key(), f.candidates, 0, nullptr), Error);
}

TEST_F(AutotuneTest, CacheDirectoryFromTheEnvironment) {
  EXPECT_EQ(at::cache_dir(), dir_);
  ::unsetenv("TESSERA_CACHE_DIR");
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved_xdg = xdg ? xdg : "";
  ::setenv("XDG_CACHE_HOME", "/some/xdg", 1);
  EXPECT_EQ(at::cache_dir(), "/some/xdg/tessera");
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(at::cache_dir(), std::string(std::getenv("HOME")) + "/.cache/tessera");
  if (xdg) ::setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
  ::setenv("TESSERA_CACHE_DIR", dir_.c_str(), 1);
}

TEST_F(AutotuneTest, KeysAndBuckets) {
  EXPECT_EQ(key().str(), "FakeGPU/8sm|test_op|bf16|m16_n32_k64");
  EXPECT_EQ(at::pow2_bucket(0), 1);
  EXPECT_EQ(at::pow2_bucket(1), 1);
  EXPECT_EQ(at::pow2_bucket(17), 32);
  EXPECT_EQ(at::pow2_bucket(2048), 2048);
  EXPECT_EQ(at::shape_class({{"m", 128}, {"n", 4096}, {"k", 14336}}), "m128_n4096_k14336");
  const at::Key mk = ops::matmul_tune_key(DType::bf16, 100, 4096, 14336);
  EXPECT_EQ(mk.op, "matmul");
  EXPECT_EQ(mk.dtype, "bf16_nk");
  EXPECT_EQ(mk.shape_class, "m128_n4096_k14336");
  EXPECT_EQ(ops::matmul_tune_key(DType::bf16, 16, 4096, 4096).dtype, "bf16_nk_swapab");  // decode: its own space
  EXPECT_EQ(ops::matmul_tune_key(DType::bf16, 1, 4096, 4096).dtype, "bf16_nk_swapab_rows");  // and batch 1-4
  EXPECT_EQ(ops::matmul_tune_key(DType::bf16, 4, 4096, 4096).dtype, "bf16_nk_swapab_rows");
  EXPECT_EQ(ops::matmul_tune_key(DType::bf16, 5, 4096, 4096).dtype, "bf16_nk_swapab");
  if (!cuda_available()) {
    EXPECT_EQ(at::make_key("matmul", "bf16", "x").device, "host");
  }
}

// Every matmul configuration on tile-host against the reference (the GPU runs the same sources).
TEST_F(AutotuneTest, EveryMatmulConfigurationMatchesTheReference) {
  // The staged configurations serve rows the copy engine can read (K a multiple of 8 for 16-bit data), the
  // generic ones the others: a forced name applies to the calls it is a candidate for.
  for (const char* name : {"staged_bm128_bn256", "staged_bm128_bn128", "staged_bm64_bn128",
                           "staged_pingpong_bm128_bn128", "bm64_bn64_bk32",
                           "bm128_bn64_bk32", "bm32_bn128_bk32",
                           "staged_pingpong_bm128_bn128_c2", "staged_bm64_bn64_c2", "staged_bm128_bn256_c2", "staged_bm128_bn64"}) {
    SCOPED_TRACE(name);
    const bool staged = std::string(name).rfind("staged", 0) == 0;
    const bool clustered = std::string(name).ends_with("_c2");  // a candidate past 64 rows only
    at::force("matmul", name);
    for (DType dt : {DType::f16, DType::bf16})
      for (const auto& s : kMatmulShapes)
        if ((s.a.back() % 8 == 0) == staged && (!clustered || s.rows() > 64))
          check_matmul(Device::cpu(), dispatch::Backend::tile_host, dt, dt, s, ops::BLayout::nk, ops::Activation::none,
                       false, false, false);
    check_matmul(Device::cpu(), dispatch::Backend::tile_host, DType::bf16, DType::bf16, {{130, staged ? 72 : 70}, 200},
                 ops::BLayout::nk, ops::Activation::silu, true, true, false);
    check_matmul(Device::cpu(), dispatch::Backend::tile_host, DType::bf16, DType::bf16, {{clustered ? 97 : 33, staged ? 64 : 66}, 129},
                 ops::BLayout::nk, ops::Activation::none, false, true, true);
  }
  at::force("matmul", "bm99");
  Tensor a = random_tensor({4, 8}, DType::bf16), b = random_tensor({6, 8}, DType::bf16);
  EXPECT_THROW(ops::matmul(a, b, poisoned({4, 6}, DType::bf16), ops::BLayout::nk, {}, {dispatch::Backend::tile_host}),
               Error);
}

}  // namespace
}  // namespace tessera::testing
