#include "tessera/dispatch/autotune.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tessera/runtime/error.h"

#if TESSERA_WITH_CUDA
#include <cuda_runtime.h>

#include "dispatch/l2_flush.h"
#endif

#ifndef TESSERA_VERSION_STRING
#define TESSERA_VERSION_STRING "0.1.0"
#endif

namespace tessera::dispatch::autotune {

namespace fs = std::filesystem;

std::string Key::str() const { return device + "|" + op + "|" + dtype + "|" + shape_class; }

std::string device_tag() {
#if TESSERA_WITH_CUDA
  if (cuda_available()) {
    int dev = 0;
    if (cudaGetDevice(&dev) == cudaSuccess) {
      cudaDeviceProp prop{};
      if (cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
        return std::string(prop.name) + "/" + std::to_string(prop.multiProcessorCount) + "sm";
    }
    cudaGetLastError();
  }
#endif
  return "host";
}

Key make_key(std::string op, std::string dtype, std::string shape_class) {
  // The tag is asked for once per device: a cudaGetDeviceProperties per op call would cost microseconds.
  static std::mutex mutex;
  static std::map<int, std::string> tags;
  int dev = 0;
#if TESSERA_WITH_CUDA
  if (cuda_available() && cudaGetDevice(&dev) != cudaSuccess) { cudaGetLastError(); dev = 0; }
#endif
  std::string tag;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = tags.find(dev);
    if (it == tags.end()) it = tags.emplace(dev, device_tag()).first;
    tag = it->second;
  }
  return Key{std::move(tag), std::move(op), std::move(dtype), std::move(shape_class)};
}

long long pow2_bucket(long long n) {
  long long p = 1;
  while (p < n) p *= 2;
  return p;
}

std::string shape_class(std::initializer_list<std::pair<const char*, long long>> dims) {
  std::string s;
  for (const auto& [name, value] : dims) {
    if (!s.empty()) s += '_';
    s += name;
    s += std::to_string(value);
  }
  return s;
}

// ---------------------------------------------------------------------------------------------------------
// Settings and in-memory state.
namespace {

struct State {
  std::mutex mutex;
  std::map<std::string, Entry> memory;  // by Key::str()
  std::string loaded_from;              // the cache file read into `memory`, "" when none yet
  std::optional<bool> enabled_override;
  std::map<std::string, std::string> forced;  // op -> candidate name
  Timer timer;
  // One tuning at a time (candidates timed concurrently would disturb each other); recursive, because a
  // candidate may call an op that is tuned itself, whose tuning then happens in the candidate's warm-up runs.
  std::recursive_mutex tuning;
};

State& state() {
  static State* s = [] {
    auto* st = new State();  // never destroyed: ops may run during static destruction
    if (const char* env = std::getenv("TESSERA_AUTOTUNE_FORCE"); env && *env) {
      std::stringstream list(env);
      std::string item;
      while (std::getline(list, item, ',')) {
        const auto colon = item.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == item.size())
          invalid_argument("TESSERA_AUTOTUNE_FORCE: '" + item + "' is not op:candidate");
        st->forced[item.substr(0, colon)] = item.substr(colon + 1);
      }
    }
    return st;
  }();
  return *s;
}

bool env_enabled() {
  const char* env = std::getenv("TESSERA_AUTOTUNE");
  return !(env && std::strcmp(env, "0") == 0);
}

void warn(const std::string& message) { std::fprintf(stderr, "tessera: warning: %s\n", message.c_str()); }

// One warning per corrupt file path per process.
void warn_corrupt_once(const std::string& path, const std::string& why) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  std::lock_guard<std::mutex> lock(mutex);
  if (warned.insert(path).second)
    warn("ignoring the autotune cache " + path + " (" + why + "); it will be rewritten");
}

}  // namespace

void set_enabled(std::optional<bool> enabled) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().enabled_override = enabled;
}

bool enabled() {
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    if (state().enabled_override) return *state().enabled_override;
  }
  return env_enabled();
}

void force(const std::string& op, const std::string& name) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (name.empty()) state().forced.erase(op);
  else state().forced[op] = name;
}

void set_timer(Timer timer) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().timer = std::move(timer);
}

// ---------------------------------------------------------------------------------------------------------
// The on-disk cache.

std::string cache_dir() {
  if (const char* dir = std::getenv("TESSERA_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/tessera";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/tessera";
  return ".cache/tessera";
}

std::string cache_file() { return cache_dir() + "/autotune.json"; }

namespace {

using json = nlohmann::json;

json to_json(const std::map<std::string, Entry>& entries) {
  json doc;
  doc["schema"] = kSchemaVersion;
  doc["tessera"] = TESSERA_VERSION_STRING;
  json& out = doc["entries"] = json::object();
  for (const auto& [key, e] : entries) {
    json timings = json::object();
    for (const auto& [name, us] : e.timings) timings[name] = us;
    out[key] = {{"choice", e.choice}, {"us", e.us}, {"timings", timings}};
    if (!e.sustained.empty()) {
      json sustained = json::object();
      for (const auto& [name, us] : e.sustained) sustained[name] = us;
      out[key]["sustained"] = sustained;
    }
    if (!e.failed.empty()) out[key]["failed"] = e.failed;
  }
  return doc;
}

// Parses a cache document. Returns nullopt for a different version (not an error); throws std::exception for
// a malformed one.
std::optional<std::map<std::string, Entry>> from_json(const json& doc) {
  if (!doc.is_object()) throw std::runtime_error("not a JSON object");
  if (doc.at("schema").get<int>() != kSchemaVersion || doc.at("tessera").get<std::string>() != TESSERA_VERSION_STRING)
    return std::nullopt;
  std::map<std::string, Entry> entries;
  for (const auto& [key, v] : doc.at("entries").items()) {
    Entry e;
    e.choice = v.at("choice").get<std::string>();
    e.us = v.at("us").get<double>();
    if (v.contains("timings"))
      for (const auto& [name, us] : v.at("timings").items()) e.timings[name] = us.get<double>();
    if (v.contains("sustained"))
      for (const auto& [name, us] : v.at("sustained").items()) e.sustained[name] = us.get<double>();
    if (v.contains("failed"))
      for (const auto& name : v.at("failed")) e.failed.insert(name.get<std::string>());
    if (e.choice.empty()) throw std::runtime_error("entry '" + key + "' has an empty choice");
    entries[key] = std::move(e);
  }
  return entries;
}

}  // namespace

std::map<std::string, Entry> read_cache_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  if (text.empty()) {
    warn_corrupt_once(path, "empty file");
    return {};
  }
  try {
    auto entries = from_json(json::parse(text));
    return entries ? std::move(*entries) : std::map<std::string, Entry>{};
  } catch (const std::exception& e) {
    warn_corrupt_once(path, e.what());
    return {};
  }
}

namespace {
// Holds an exclusive flock on a lock file for its lifetime.
class FileLock {
 public:
  explicit FileLock(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) fail(Status::io_error, "cannot open the lock file " + path + ": " + std::strerror(errno));
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd_);
      fail(Status::io_error, "cannot lock " + path + ": " + std::strerror(err));
    }
  }
  ~FileLock() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};
}  // namespace

void merge_into_cache_file(const std::string& path, const std::map<std::string, Entry>& entries) {
  const fs::path file(path);
  std::error_code ec;
  if (file.has_parent_path()) fs::create_directories(file.parent_path(), ec);
  if (ec) fail(Status::io_error, "cannot create the cache directory " + file.parent_path().string() + ": " + ec.message());
  const FileLock lock(path + ".lock");
  std::map<std::string, Entry> merged = read_cache_file(path);
  for (const auto& [key, e] : entries) merged[key] = e;
  // A name unique to this process and call, in the same directory, so the rename is atomic.
  static std::atomic<uint64_t> counter{0};
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(Status::io_error, "cannot write " + tmp + ": " + std::strerror(errno));
    out << to_json(merged).dump(1) << "\n";
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      fail(Status::io_error, "cannot write " + tmp);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    fs::remove(tmp, ec);
    fail(Status::io_error, "cannot rename " + tmp + " to " + path + ": " + std::strerror(err));
  }
}

void clear_memory_cache() {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().memory.clear();
  state().loaded_from.clear();
}

std::map<std::string, Entry> memory_entries() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().memory;
}

// ---------------------------------------------------------------------------------------------------------
// The GPU timer.


#if TESSERA_WITH_CUDA
namespace {
// A device buffer larger than the L2 cache; reading it before each timed run evicts the operands, so every
// run starts from DRAM as it does inside a model step. Kept for the life of the process (one per device; null
// where it could not be allocated).
const detail::L2FlushBuffer* flush_buffer() {
  static std::mutex mutex;
  static auto& buffers = *new std::map<int, std::unique_ptr<detail::L2FlushBuffer>>();
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  auto& b = buffers[dev];
  if (!b) {
    int l2 = 0;
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    b = std::make_unique<detail::L2FlushBuffer>(std::max<size_t>(size_t(2) * size_t(l2), size_t(8) << 20));
  }
  return b->ok() ? b.get() : nullptr;
}

bool launch_ok(const Candidate& c) {
  try {
    c.launch();
  } catch (const std::exception&) {
    cudaGetLastError();
    return false;
  }
  return cudaGetLastError() == cudaSuccess;
}
}  // namespace
#endif

std::optional<double> gpu_time_us(const Candidate& c, StreamHandle stream, Timing timing) {
#if TESSERA_WITH_CUDA
  // Sustained: kRuns bursts of kBurst launches, each burst after one flush.
  constexpr int kWarmup = 2, kRuns = 7, kBurst = 6;
  const int launches = timing == Timing::sustained ? kBurst : 1;
  const auto s = static_cast<cudaStream_t>(stream);
  cudaGetLastError();  // an earlier, unrelated error must not be blamed on this candidate
  // The first launch also checks that the candidate can run at all (resources, grid limits).
  for (int i = 0; i < kWarmup; ++i)
    if (!launch_ok(c)) return std::nullopt;
  if (cudaStreamSynchronize(s) != cudaSuccess) { cudaGetLastError(); return std::nullopt; }
  const detail::L2FlushBuffer* flush = flush_buffer();
  // The flush is a kernel, and the candidate is timed with it: the flush then the candidate, less the flush
  // alone. Inside a model step a kernel follows another kernel, which on Hopper lets it launch while that one
  // finishes (programmatic dependent launch). Timed from an event after a memset, every candidate paid its
  // whole launch instead, 2-5 us that a step or a CUDA graph does not pay and that differs by configuration:
  // at 128 x 4096 x 4096 the candidates came within 2% (20.4-20.8 us) and the tuner kept 64 x 128 tiles, 17.9
  // us in a graph where 128 x 64 tiles take 15.8; timed after the flush kernel they separate as in the graph
  // (17.1-18.0 against 19.5-19.7; H200, session 43).
  auto flush_l2 = [&](int i) {
    if (flush) flush->run(stream, i);
  };
  cudaEvent_t start = nullptr, stop = nullptr;
  if (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess) {
    cudaGetLastError();
    if (start) cudaEventDestroy(start);
    return std::nullopt;
  }
  auto elapsed_us = [&](bool ok) {
    float ms = 0;
    ok = ok && cudaEventSynchronize(stop) == cudaSuccess && cudaEventElapsedTime(&ms, start, stop) == cudaSuccess;
    return ok ? std::optional<double>(double(ms) * 1e3) : std::nullopt;
  };
  std::vector<double> flush_alone, flush_then_candidate;
  bool ok = true;
  for (int i = 0; i < kRuns && ok; ++i) {
    cudaEventRecord(start, s);
    flush_l2(i);
    cudaEventRecord(stop, s);
    const std::optional<double> alone = elapsed_us(true);
    cudaEventRecord(start, s);
    flush_l2(i);
    for (int l = 0; l < launches && ok; ++l) ok = launch_ok(c);
    cudaEventRecord(stop, s);
    const std::optional<double> both = elapsed_us(ok);
    ok = alone && both;
    if (ok) {
      flush_alone.push_back(*alone);
      flush_then_candidate.push_back(*both);
    }
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (!ok) { cudaGetLastError(); return std::nullopt; }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  // A candidate whose launch the flush hides almost whole still costs something: never 0 or less.
  return std::max((median(flush_then_candidate) - median(flush_alone)) / launches, 0.01);
#else
  (void)c;
  (void)stream;
  (void)timing;
  return std::nullopt;
#endif
}

// ---------------------------------------------------------------------------------------------------------
// Selection.

namespace {
size_t index_of(const std::vector<Candidate>& candidates, const std::string& name) {
  for (size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].name == name) return i;
  return candidates.size();
}

// The index of a remembered choice, or candidates.size() when the configuration space changed since it was
// tuned: the choice is no longer offered, or (for entries that list what they timed) a candidate is new.
size_t remembered_index(const std::vector<Candidate>& candidates, const Entry& e) {
  if (!e.timings.empty())
    for (const auto& c : candidates)
      if (!e.timings.contains(c.name) && !e.failed.contains(c.name)) return candidates.size();
  return index_of(candidates, e.choice);
}

// The remembered choice for `key`, reading the disk cache into memory first if this is the first look.
// Caller holds state().mutex.
const Entry* remembered(const std::string& key) {
  State& st = state();
  if (st.loaded_from.empty()) {
    // Read once per process (clear_memory_cache reads again, e.g. after the cache directory changed): this
    // runs on every op call, which must not pay for an environment lookup and a file read.
    st.loaded_from = cache_file();
    for (auto& [k, e] : read_cache_file(st.loaded_from)) st.memory.emplace(k, std::move(e));
  }
  auto it = st.memory.find(key);
  return it == st.memory.end() ? nullptr : &it->second;
}

size_t select_index_with(const Key& key, const std::vector<Candidate>& candidates, size_t heuristic,
                         StreamHandle stream, Where where, bool tunable, const StandIns* stand_ins) {
  if (candidates.empty()) invalid_argument("autotune(" + key.op + "): no candidates");
  if (heuristic >= candidates.size())
    invalid_argument("autotune(" + key.op + "): heuristic index " + std::to_string(heuristic) + " out of range (" +
                     std::to_string(candidates.size()) + " candidates)");
  State& st = state();
  const std::string key_str = key.str();
  Timer timer;
  size_t untuned = heuristic;  // what a call that cannot be timed runs
  {
    std::lock_guard<std::mutex> lock(st.mutex);
    if (auto it = st.forced.find(key.op); it != st.forced.end()) {
      const size_t i = index_of(candidates, it->second);
      if (i == candidates.size())
        invalid_argument("autotune: the forced choice '" + it->second + "' is not a candidate of " + key.op);
      return i;
    }
    if (where == Where::host || candidates.size() == 1) return heuristic;
    if (st.enabled_override ? !*st.enabled_override : !env_enabled()) return heuristic;
    if (const Entry* e = remembered(key_str)) {
      const size_t i = remembered_index(candidates, *e);
      if (i < candidates.size()) return i;  // otherwise the configuration space changed: tune again
      // Where this call cannot tune, an older choice that is still offered beats the heuristic.
      if (const size_t old = index_of(candidates, e->choice); old < candidates.size()) untuned = old;
    }
    if (!tunable && stand_ins == nullptr) return untuned;
    timer = st.timer;
  }
  if (!timer && tessera::stream_is_capturing(stream)) return untuned;  // nothing may be timed

  std::lock_guard<std::recursive_mutex> tuning(st.tuning);
  {
    // Another thread may have tuned this key while we waited.
    std::lock_guard<std::mutex> lock(st.mutex);
    if (auto it = st.memory.find(key_str); it != st.memory.end()) {
      const size_t i = remembered_index(candidates, it->second);
      if (i < candidates.size()) return i;
    }
  }
  {
    std::set<std::string> names;
    for (const auto& c : candidates)
      if (!names.insert(c.name).second) invalid_argument("autotune(" + key.op + "): duplicate candidate " + c.name);
  }
  std::vector<Candidate> substitutes;
  if (stand_ins != nullptr) {
    substitutes = (*stand_ins)();
    bool same = substitutes.size() == candidates.size();
    for (size_t i = 0; same && i < candidates.size(); ++i) same = substitutes[i].name == candidates[i].name;
    if (!same) invalid_argument("autotune(" + key.op + "): the stand-ins do not name the candidates, in order");
  }
  const std::vector<Candidate>& timed = stand_ins != nullptr ? substitutes : candidates;
  Entry entry;
  auto time = [&](size_t i, Timing timing) {
    return timer ? timer(timed[i], stream, timing) : gpu_time_us(timed[i], stream, timing);
  };
  std::vector<std::pair<double, size_t>> cold;  // (microseconds, candidate) of those that ran
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::optional<double> us = time(i, Timing::cold);
    if (!us) {
      entry.failed.insert(candidates[i].name);
      continue;
    }
    entry.timings[candidates[i].name] = *us;
    cold.emplace_back(*us, i);
  }
  if (cold.empty()) return heuristic;  // nothing ran: do not remember a guess
  std::stable_sort(cold.begin(), cold.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  size_t best = cold.front().second;
  const double fastest = cold.front().first;
  const double tie = fastest >= kSustainedFromUs ? kNearTie : kShortNearTie;
  size_t near_ties = 0;
  while (near_ties < cold.size() && near_ties < kMostRetimed && cold[near_ties].first <= fastest * (1 + tie))
    ++near_ties;
  if (near_ties > 1) {
    std::optional<double> best_sustained;
    for (size_t t = 0; t < near_ties; ++t) {
      const size_t i = cold[t].second;
      const std::optional<double> us = time(i, Timing::sustained);
      if (!us) continue;
      entry.sustained[candidates[i].name] = *us;
      if (!best_sustained || *us < *best_sustained) {
        best_sustained = *us;
        best = i;
      }
    }
  }
  entry.choice = candidates[best].name;
  entry.us = entry.timings.at(entry.choice);
  {
    std::lock_guard<std::mutex> lock(st.mutex);
    st.memory[key_str] = entry;
  }
  try {
    merge_into_cache_file(cache_file(), {{key_str, entry}});
  } catch (const std::exception& e) {
    static std::once_flag once;
    std::call_once(once, [&] { warn(std::string("cannot write the autotune cache: ") + e.what()); });
  }
  return best;
}
}  // namespace

size_t select_index(const Key& key, const std::vector<Candidate>& candidates, size_t heuristic, StreamHandle stream,
                    Where where, bool tunable) {
  return select_index_with(key, candidates, heuristic, stream, where, tunable, nullptr);
}

size_t select_index(const Key& key, const std::vector<Candidate>& candidates, size_t heuristic, StreamHandle stream,
                    Where where, const StandIns& stand_ins) {
  return select_index_with(key, candidates, heuristic, stream, where, false, stand_ins ? &stand_ins : nullptr);
}

}  // namespace tessera::dispatch::autotune
