// The host side of the kernel trace (tessera/tile/cuda/trace.h): the device buffer, the launches' places in
// it, and the files written from it.
#include "tessera/tile/cuda/trace.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <typeinfo>
#include <vector>

#include <cxxabi.h>

#include "tessera/runtime/error.h"

#if TESSERA_WITH_CUDA
#include <cuda_runtime.h>

#include "tessera/runtime/cuda_check.h"
#endif

namespace tessera::tile::cuda::trace {

namespace {

struct Launch {
  const char* kernel_type;
  int64_t first, blocks;
};

struct Trace {
  BlockRecord* records = nullptr;
  int64_t capacity = 0, used = 0, dropped_launches = 0;
  std::vector<Launch> launches;
};

constexpr const char* kMarkNames[4] = {"copy_issued", "first_full", "loop_done", "consumer_done"};

std::mutex mutex;
std::unique_ptr<Trace> current;
// Whether a trace is open, read without the mutex: every launch asks (reserve), and almost always none is.
std::atomic<bool> any_open{false};

std::string readable_name(const char* type) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(type, nullptr, nullptr, &status), std::free);
  std::string name = status == 0 && demangled ? demangled.get() : type;
  for (const std::string prefix : {"tessera::ops::kernels::", "tessera::"})
    for (size_t at; (at = name.find(prefix)) != std::string::npos;) name.erase(at, prefix.size());
  std::string escaped;
  for (char c : name) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

// The trace's blocks on one multiprocessor in rows that do not overlap (several blocks share one at a time):
// Chrome's format draws a row's events as a stack.
std::vector<int> rows_per_multiprocessor(const std::vector<BlockRecord>& blocks) {
  std::vector<int64_t> order;
  for (int64_t i = 0; i < int64_t(blocks.size()); ++i)
    if (blocks[size_t(i)].start != 0) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return blocks[size_t(a)].start < blocks[size_t(b)].start; });
  std::vector<int> row(blocks.size(), 0);
  std::vector<std::vector<unsigned long long>> row_end;  // per multiprocessor, the end of each row's last block
  for (int64_t i : order) {
    const BlockRecord& r = blocks[size_t(i)];
    if (r.sm >= row_end.size()) row_end.resize(r.sm + 1);
    auto& ends = row_end[r.sm];
    size_t k = 0;
    while (k < ends.size() && ends[k] > r.start) ++k;
    if (k == ends.size()) ends.push_back(0);
    ends[k] = std::max(r.end, r.start);
    row[size_t(i)] = int(k);
  }
  return row;
}

}  // namespace

bool available() {
#if TESSERA_WITH_CUDA && defined(TESSERA_TILE_TRACE)
  return true;
#else
  return false;
#endif
}

bool is_open() {
  std::lock_guard lock(mutex);
  return current != nullptr;
}

void open(int64_t max_blocks) {
  if (!available()) unsupported("kernel trace: this build records none (configure with -DTESSERA_TILE_TRACE=ON and CUDA)");
  if (max_blocks <= 0) invalid_argument("kernel trace: room for " + std::to_string(max_blocks) + " blocks");
  std::lock_guard lock(mutex);
  if (current) invalid_argument("kernel trace: one is open already");
  auto t = std::make_unique<Trace>();
  t->capacity = max_blocks;
#if TESSERA_WITH_CUDA
  const size_t bytes = size_t(max_blocks) * sizeof(BlockRecord);
  TESSERA_CUDA_CHECK(cudaMalloc(&t->records, bytes));
  TESSERA_CUDA_CHECK(cudaMemset(t->records, 0, bytes));
  TESSERA_CUDA_CHECK(cudaDeviceSynchronize());
#endif
  current = std::move(t);
  any_open.store(true, std::memory_order_release);
}

Slot reserve(const char* kernel_type, int64_t blocks) {
  if (!any_open.load(std::memory_order_acquire)) return {};
  std::lock_guard lock(mutex);
  if (!current) return {};
  if (current->used + blocks > current->capacity) {
    ++current->dropped_launches;
    return {};
  }
  Slot slot{current->records + current->used};
  current->launches.push_back({kernel_type, current->used, blocks});
  current->used += blocks;
  return slot;
}

void write_and_close(const std::string& json_path) {
  std::unique_ptr<Trace> t;
  {
    std::lock_guard lock(mutex);
    if (!current) invalid_argument("kernel trace: none is open");
    t = std::move(current);
    any_open.store(false, std::memory_order_release);
  }
  std::vector<BlockRecord> blocks(size_t(t->used));
#if TESSERA_WITH_CUDA
  TESSERA_CUDA_CHECK(cudaDeviceSynchronize());
  if (t->used > 0) TESSERA_CUDA_CHECK(cudaMemcpy(blocks.data(), t->records, blocks.size() * sizeof(BlockRecord), cudaMemcpyDeviceToHost));
  // The buffer is not freed: a CUDA graph captured while the trace was open may be replayed later, and its
  // kernels still write where their slots point.
#endif
  unsigned long long t0 = ~0ull;
  for (const BlockRecord& r : blocks)
    if (r.start != 0) t0 = std::min(t0, r.start);
  auto us = [&](unsigned long long ns) { return ns == 0 ? -1.0 : double(ns - t0) * 1e-3; };

  std::unique_ptr<FILE, int (*)(FILE*)> json(std::fopen(json_path.c_str(), "w"), std::fclose);
  if (!json) fail(Status::io_error, "kernel trace: cannot write " + json_path);
  const std::string tsv_path = json_path + ".tsv";
  std::unique_ptr<FILE, int (*)(FILE*)> tsv(std::fopen(tsv_path.c_str(), "w"), std::fclose);
  if (!tsv) fail(Status::io_error, "kernel trace: cannot write " + tsv_path);

  const std::vector<int> row = rows_per_multiprocessor(blocks);
  std::fprintf(json.get(), "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  // The marks' columns: the median over the launch's blocks of each mark's time after the block was ready.
  std::fprintf(tsv.get(), "launch\tblocks\tran\tsms\tfirst_start\tlast_start\tfirst_ready\tlast_ready\tfirst_end\tlast_end\t"
                          "copy_issued\tfirst_full\tloop_done\tconsumer_done\tkernel\n");
  bool first_event = true;
  for (size_t li = 0; li < t->launches.size(); ++li) {
    const Launch& l = t->launches[li];
    const std::string name = readable_name(l.kernel_type);
    unsigned long long first_start = ~0ull, last_start = 0, first_ready = ~0ull, last_ready = 0, first_end = ~0ull, last_end = 0;
    int64_t ran = 0;
    std::vector<unsigned> sms;
    std::vector<double> after_ready[4];
    for (int64_t b = 0; b < l.blocks; ++b) {
      const size_t i = size_t(l.first + b);
      const BlockRecord& r = blocks[i];
      if (r.start == 0) continue;
      ++ran;
      sms.push_back(r.sm);
      first_start = std::min(first_start, r.start), last_start = std::max(last_start, r.start);
      first_ready = std::min(first_ready, r.ready), last_ready = std::max(last_ready, r.ready);
      first_end = std::min(first_end, r.end), last_end = std::max(last_end, r.end);
      std::string marks;
      for (int m = 0; m < 4; ++m) {
        // A mark older than the block's start is a graph's earlier replay's, or another kernel's: none.
        if (r.marks[m] < r.start) continue;
        after_ready[m].push_back(double(r.marks[m] - r.ready) * 1e-3);
        marks += ",\"" + std::string(kMarkNames[m]) + "_us\":" + std::to_string(double(r.marks[m] - r.start) * 1e-3);
      }
      std::fprintf(json.get(),
                   "%s{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%u,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
                   "\"args\":{\"launch\":%zu,\"block\":%lld,\"ready_us\":%.3f%s}}",
                   first_event ? "" : ",\n", name.c_str(), r.sm, row[i], us(r.start), double(r.end - r.start) * 1e-3, li,
                   (long long)b, double(r.ready - r.start) * 1e-3, marks.c_str());
      first_event = false;
    }
    std::sort(sms.begin(), sms.end());
    const auto distinct = std::unique(sms.begin(), sms.end()) - sms.begin();
    std::string mark_columns;
    for (auto& v : after_ready) {
      mark_columns += '\t';
      if (v.empty()) continue;
      std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
      mark_columns += std::to_string(v[v.size() / 2]);
    }
    if (ran == 0)
      std::fprintf(tsv.get(), "%zu\t%lld\t0\t0\t\t\t\t\t\t\t\t\t\t\t%s\n", li, (long long)l.blocks, name.c_str());
    else
      std::fprintf(tsv.get(), "%zu\t%lld\t%lld\t%lld\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f%s\t%s\n", li, (long long)l.blocks,
                   (long long)ran, (long long)distinct, us(first_start), us(last_start), us(first_ready), us(last_ready),
                   us(first_end), us(last_end), mark_columns.c_str(), name.c_str());
  }
  std::fprintf(json.get(), "\n]}\n");
  if (t->dropped_launches > 0)
    std::fprintf(stderr, "kernel trace: full, %lld launches not recorded (open it with more room)\n", (long long)t->dropped_launches);
}

}  // namespace tessera::tile::cuda::trace
