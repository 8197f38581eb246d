// The autotuner: picks one of a kernel launcher's configurations for a problem, by timing them on the GPU the
// first time the problem is seen, and remembers the choice in memory and on disk.
//
// A launcher declares its configuration space as a list of named candidates (each a callable that launches
// that configuration on the call's stream) and a heuristic default, then asks:
//
//   const Candidate& c = autotune::select(autotune::make_key("matmul", "bf16", shape_class), candidates,
//                                         heuristic_index, stream);
//   c.launch();
//
// What select does, in order:
//   1. a forced choice (autotune::force, or TESSERA_AUTOTUNE_FORCE=op:name[,op:name]) names the candidate;
//   2. TESSERA_AUTOTUNE=0 (or set_enabled(false)): the heuristic, nothing is timed or read from disk;
//   3. a choice for the key in memory, else in the on-disk cache, that names one of the candidates;
//   4. otherwise (tile-cuda only) every candidate is timed (timer(): CUDA events, warm-up, median of several
//      runs, L2 flushed before each run), the fastest is kept in memory and written to disk. A candidate that
//      fails to launch is skipped and its error cleared; when all fail, or the stream is being captured into a
//      CUDA graph, the heuristic is used and nothing is remembered. Near-ties are then timed again in bursts
//      of back-to-back launches (Timing::sustained), and the fastest of those is kept: within kNearTie of the
//      fastest for long calls (the fastest at least kSustainedFromUs), within kShortNearTie for short ones.
//      One cold launch and a run of them can rank near-ties differently: by 5-13% for large matmuls on an
//      H200 (clocks under sustained load), by up to 18% for decode-size matmuls (whether a launch can start
//      under the previous one's end: a block that fills a multiprocessor's shared memory cannot).
// Host backends pass Where::host: always the heuristic (a forced choice still applies, so host tests can run
// every configuration).
//
// Idempotence: tuning launches every candidate several times on the caller's buffers. That is only correct
// when the op's output does not feed its input (no residual or accumulator aliased to the output, no in-place
// update). The caller must guarantee it: for a call that is not idempotent, pass tunable = false (the
// heuristic is used and nothing is remembered, so a later idempotent call of the same shape class tunes), or
// pass stand-ins: candidates of the same names that do the same work on scratch outputs, built only when
// timing is due; they are timed in place of the call's candidates, of which only the chosen one runs.
//
// The cache key is (device: GPU name + SM count, op, dtype, shape class). The shape class is the caller's
// string: it should name the shapes that want the same configuration, e.g. "m128_n4096_k4096" with M rounded
// up to a power of two and N, K exact.
//
// On disk: $TESSERA_CACHE_DIR, else $XDG_CACHE_HOME/tessera, else ~/.cache/tessera; the file autotune.json:
//   {"schema": 1, "tessera": "0.1.0", "entries": {"<key>": {"choice": "<name>", "us": 12.5,
//                                                          "timings": {"<name>": 12.5, ...},
//                                                          "sustained": {"<name>": 11.9, ...}}}}
// ("sustained" only where near-ties were re-timed).
// A file of another schema or tessera version is ignored (and replaced at the next write); a corrupt or
// truncated file is ignored with one warning and rewritten. Writers take an flock on autotune.json.lock, merge their
// entries into what is on disk at that moment, write a temporary file and rename it over the old one, so
// concurrent processes lose no entries and readers never see a half-written file.
#pragma once
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tessera/runtime/device.h"

namespace tessera::dispatch::autotune {

inline constexpr int kSchemaVersion = 1;

struct Candidate {
  std::string name;             // unique within the op, stable across builds: it is what the cache stores
  std::function<void()> launch; // launches this configuration (on the stream the caller passes to select)
};

struct Key {
  std::string device;       // e.g. "NVIDIA H200/132sm"
  std::string op;           // e.g. "matmul"
  std::string dtype;        // e.g. "bf16" (or "bf16->f32", "bf16_kn": whatever selects a different space)
  std::string shape_class;  // e.g. "m128_n4096_k4096"
  std::string str() const;  // "device|op|dtype|shape_class"
};

// The current CUDA device's tag ("<name>/<SMs>sm"), or "host" without a GPU.
std::string device_tag();
Key make_key(std::string op, std::string dtype, std::string shape_class);
// n rounded up to a power of two (1 for n <= 1): a helper for shape classes.
long long pow2_bucket(long long n);
// "m128_n4096_k4096" from {{"m", 128}, {"n", 4096}, {"k", 4096}}: the usual spelling of a shape class.
std::string shape_class(std::initializer_list<std::pair<const char*, long long>> dims);

enum class Where { host, cuda };

// Picks the candidate to run, as the header comment says. `heuristic` indexes `candidates` (not empty).
// Throws invalid_argument on an empty list, a heuristic out of range, duplicate names or a forced name that is
// not a candidate.
size_t select_index(const Key& key, const std::vector<Candidate>& candidates, size_t heuristic,
                    StreamHandle stream, Where where = Where::cuda, bool tunable = true);
inline const Candidate& select(const Key& key, const std::vector<Candidate>& candidates, size_t heuristic,
                               StreamHandle stream, Where where = Where::cuda, bool tunable = true) {
  return candidates[select_index(key, candidates, heuristic, stream, where, tunable)];
}

// Builds the stand-ins of a call that is not idempotent (see the header comment): same names, same order.
using StandIns = std::function<std::vector<Candidate>()>;
size_t select_index(const Key& key, const std::vector<Candidate>& candidates, size_t heuristic,
                    StreamHandle stream, Where where, const StandIns& stand_ins);

// ---- the timer ----
// How a candidate is timed. cold: one launch after the L2 is flushed (a call inside a model step), the median
// of several. sustained: bursts of back-to-back launches after one flush, microseconds per launch, the median
// burst (a long run of heavy calls). The flush is a kernel that the candidate follows as it would follow the
// kernel before it in a step (launching early on Hopper): the time is that of the flush and the candidate
// less the flush's alone.
enum class Timing { cold, sustained };
// Near-ties are re-timed sustained, at most kMostRetimed of them: for calls whose fastest cold time is at least
// kSustainedFromUs (their operands outgrow L2, so back-to-back launches do not find them cached) those within
// kNearTie of the fastest; for shorter calls those within kShortNearTie. A short call's cold time is the
// difference of two medians some 30 us long and moves by 1-2 us between processes (12.6-14.0 us for one
// configuration of a 16 x 4096 x 4096 matmul, 14.3-15.0 for another, H200), so it does not rank candidates
// 20% apart reliably; a burst of six divides that noise and adds what back-to-back calls pay (the bench, a
// projection after a projection). The operands of a short call may stay in the L2 through a burst.
inline constexpr double kSustainedFromUs = 100, kNearTie = 0.05, kShortNearTie = 0.20;
inline constexpr size_t kMostRetimed = 4;
// Times one candidate on `stream`: its typical run time in microseconds, or nullopt when it cannot run (the
// error is cleared). The default times on the GPU; tests inject a fake.
using Timer = std::function<std::optional<double>(const Candidate&, StreamHandle, Timing)>;
void set_timer(Timer timer);  // nullptr restores the GPU timer
std::optional<double> gpu_time_us(const Candidate& c, StreamHandle stream, Timing timing = Timing::cold);

// ---- settings ----
// Tuning on first use (TESSERA_AUTOTUNE, default 1); nullopt restores the environment's value.
void set_enabled(std::optional<bool> enabled);
bool enabled();
// Forces op's choice to the candidate named `name` (empty name removes it). TESSERA_AUTOTUNE_FORCE sets these.
void force(const std::string& op, const std::string& name);
// Clears op's forced choice when it goes out of scope, also when an exception passes: a choice left forced
// would steer every later call (tests that force each candidate in turn, bench rows of one).
struct ClearForcedChoice {
  std::string op;
  ~ClearForcedChoice() { force(op, ""); }
};

// ---- the cache ----
struct Entry {
  std::string choice;
  double us = 0;                            // the choice's cold time
  std::map<std::string, double> timings;    // every candidate that ran, microseconds (cold)
  std::map<std::string, double> sustained;  // the near-ties re-timed sustained, microseconds per launch
  std::set<std::string> failed;             // candidates that could not run when this entry was tuned
};
std::string cache_dir();   // where the cache lives now (environment read at each call)
std::string cache_file();  // cache_dir() + "/autotune.json"
// Forgets the in-memory cache (the next select reads the disk again).
void clear_memory_cache();
// The entries of the on-disk cache, or {} when it is missing, of another version or corrupt.
std::map<std::string, Entry> read_cache_file(const std::string& path);
// Merges `entries` into the on-disk cache under its lock (temp file + rename).
void merge_into_cache_file(const std::string& path, const std::map<std::string, Entry>& entries);
// What select remembered in this process (for `tessera tune` reports and tests).
std::map<std::string, Entry> memory_entries();

}  // namespace tessera::dispatch::autotune
