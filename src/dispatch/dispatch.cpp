#include "tessera/dispatch/dispatch.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <tuple>

namespace tessera::dispatch {

std::string_view backend_name(Backend b) {
  switch (b) {
    case Backend::tile_cuda: return "tile-cuda";
    case Backend::tile_host: return "tile-host";
    case Backend::reference: return "reference";
  }
  return "invalid";
}

std::optional<Backend> backend_from_name(std::string_view name) {
  for (Backend b : kAllBackends)
    if (backend_name(b) == name) return b;
  return std::nullopt;
}

namespace {
std::mutex g_mutex;

std::optional<Backend>& backend_setting() {
  static std::optional<Backend> setting = [] {
    std::optional<Backend> b;
    if (const char* env = std::getenv("TESSERA_BACKEND"); env && *env) {
      b = backend_from_name(env);
      if (!b)
        invalid_argument(std::string("TESSERA_BACKEND=") + env +
                         " is not a backend (expected tile-cuda, tile-host or reference)");
    }
    return b;
  }();
  return setting;
}

bool& fallback_setting() {
  static bool enabled = [] {
    const char* env = std::getenv("TESSERA_DISABLE_FALLBACK");
    return !(env && *env && std::strcmp(env, "0") != 0);
  }();
  return enabled;
}

std::map<std::string, std::set<Backend>>& op_table() {
  static std::map<std::string, std::set<Backend>> table;
  return table;
}
}  // namespace

void set_backend(std::optional<Backend> backend) {
  std::lock_guard<std::mutex> lock(g_mutex);
  backend_setting() = backend;
}
std::optional<Backend> global_backend() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return backend_setting();
}
void set_fallback_enabled(bool enabled) {
  std::lock_guard<std::mutex> lock(g_mutex);
  fallback_setting() = enabled;
}
bool fallback_enabled() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return fallback_setting();
}

std::vector<OpInfo> registered_ops() {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<OpInfo> out;
  for (auto& [name, backends] : op_table()) out.push_back({name, {backends.begin(), backends.end()}});
  return out;
}

namespace detail {
void add_op_info(const std::string& name, Backend b) {
  std::lock_guard<std::mutex> lock(g_mutex);
  op_table()[name].insert(b);
}

void warn_fallback_once(const std::string& op, Backend from, Backend to, const std::string& why) {
  static std::set<std::tuple<std::string, Backend, Backend>> warned;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!warned.insert({op, from, to}).second) return;
  std::fprintf(stderr, "tessera: warning: %s falls back from %s to %s: %s (TESSERA_DISABLE_FALLBACK=1 makes this an error)\n",
               op.c_str(), std::string(backend_name(from)).c_str(), std::string(backend_name(to)).c_str(), why.c_str());
}

void no_backend(const std::string& op, const std::string& why) {
  unsupported(op + ": no backend can run this call: " + why);
}

Backend natural_backend(Device device) { return device.is_cuda() ? Backend::tile_cuda : Backend::tile_host; }
}  // namespace detail

}  // namespace tessera::dispatch
