#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "tessera/tile/host/launch.h"

namespace tessera::tile::host {

static int worker_count() {
  static const int n = [] {
    if (const char* env = std::getenv("TESSERA_HOST_THREADS")) {
      const int v = std::atoi(env);
      if (v > 0) return v;
    }
    return int(std::max(1u, std::thread::hardware_concurrency()));
  }();
  return n;
}

int multiprocessor_count() { return worker_count(); }

void run_grid(Grid grid, const std::function<void(const Block&)>& body) {
  const int64_t total = grid.count();
  if (total <= 0) return;
  std::atomic<int64_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    for (int64_t i; (i = next.fetch_add(1)) < total;) {
      Block b;
      b.blocks[0] = grid.x; b.blocks[1] = grid.y; b.blocks[2] = grid.z;
      b.block[0] = i % grid.x;
      b.block[1] = (i / grid.x) % grid.y;
      b.block[2] = i / (grid.x * grid.y);
      try {
        body(b);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next.store(total);
      }
    }
  };
  const int n = int(std::min<int64_t>(worker_count(), total));
  std::vector<std::thread> pool;
  pool.reserve(n - 1);
  for (int t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace tessera::tile::host
