// `tessera ops list` and `tessera ops check`.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>

#include "apps/tessera/commands.h"
#include "tessera/ops/ops.h"

namespace tessera::cli {

namespace {
int g_exit_code = 0;

// Why a backend cannot run here, or "" when it can.
std::string backend_unavailable(dispatch::Backend b) {
  if (b != dispatch::Backend::tile_cuda) return "";
  if (!built_with_cuda()) return "not built";
  if (!cuda_available()) return "no GPU";
  return "";
}

Device backend_device(dispatch::Backend b) { return b == dispatch::Backend::tile_cuda ? Device::cuda() : Device::cpu(); }

void list_ops() {
  ops::register_all();
  std::printf("%-22s", "op");
  for (auto b : dispatch::kAllBackends) std::printf(" %-12s", std::string(dispatch::backend_name(b)).c_str());
  std::printf("\n");
  for (const auto& info : dispatch::registered_ops()) {
    std::printf("%-22s", info.name.c_str());
    for (auto b : dispatch::kAllBackends) {
      const bool has = std::find(info.backends.begin(), info.backends.end(), b) != info.backends.end();
      const std::string why = backend_unavailable(b);
      std::printf(" %-12s", !has ? "-" : why.empty() ? "yes" : ("(" + why + ")").c_str());
    }
    std::printf("\n");
  }
}

void check_ops(const std::vector<std::string>& backend_names, const std::vector<std::string>& dtype_names,
               const std::vector<std::string>& op_filter, uint64_t seed) {
  std::vector<dispatch::Backend> backends;
  for (const auto& name : backend_names) {
    auto b = dispatch::backend_from_name(name);
    if (!b) invalid_argument("--backend " + name + " is not a backend (tile-cuda, tile-host, reference)");
    backends.push_back(*b);
  }
  if (backends.empty())
    for (auto b : {dispatch::Backend::tile_cuda, dispatch::Backend::tile_host})
      if (backend_unavailable(b).empty()) backends.push_back(b);
  std::vector<DType> dtypes;
  for (const auto& name : dtype_names) {
    auto d = dtype_from_name(name);
    if (!d || (*d != DType::f32 && *d != DType::f16 && *d != DType::bf16))
      invalid_argument("--dtype " + name + " is not one of f32, f16, bf16");
    dtypes.push_back(*d);
  }
  if (dtypes.empty()) dtypes = {DType::f32, DType::f16, DType::bf16};
  for (const auto& name : op_filter) {
    const auto& checks = ops::all_self_checks();
    if (std::none_of(checks.begin(), checks.end(), [&](const auto& c) { return c.op == name; })) {
      std::string known;
      for (size_t i = 0; i < checks.size(); ++i)
        if (i == 0 || checks[i].op != checks[i - 1].op) known += (known.empty() ? "" : ", ") + checks[i].op;
      invalid_argument("--op " + name + " has no check (known: " + known + ")");
    }
  }

  // A fallback would make the check compare the reference with itself: refuse it.
  dispatch::set_fallback_enabled(false);
  int passed = 0, failed = 0;
  std::printf("%-20s %-10s %-5s %-26s %12s %10s  %s\n", "op", "backend", "dtype", "shape", "max |err|", "tol", "result");
  for (const auto& check : ops::all_self_checks()) {
    if (!op_filter.empty() && std::find(op_filter.begin(), op_filter.end(), check.op) == op_filter.end()) continue;
    for (auto b : backends) {
      const std::string why = backend_unavailable(b);
      for (DType dt : dtypes) {
        if (!why.empty()) {
          std::printf("%-20s %-10s %-5s %-26s %12s %10s  skipped (%s)\n", check.op.c_str(),
                      std::string(dispatch::backend_name(b)).c_str(), std::string(dtype_name(dt)).c_str(), "", "", "", why.c_str());
          continue;
        }
        ops::SelfCheckResult r;
        std::string error;
        try {
          r = check.run(b, dt, backend_device(b), seed);
        } catch (const std::exception& e) {
          error = e.what();
        }
        const bool ok = error.empty() && r.passed;
        (ok ? passed : failed)++;
        std::printf("%-20s %-10s %-5s %-26s %12.3g %10.1g  %s\n", check.op.c_str(),
                    std::string(dispatch::backend_name(b)).c_str(), std::string(dtype_name(dt)).c_str(),
                    r.shape.c_str(), r.max_abs_error, r.tolerance, ok ? "PASS" : ("FAIL " + error).c_str());
      }
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  if (failed) set_exit_code(1);
  if (passed + failed == 0) {
    std::fprintf(stderr, "tessera: error: no check ran\n");
    set_exit_code(1);
  }
}
}  // namespace

int exit_code() { return g_exit_code; }
void set_exit_code(int code) { g_exit_code = code; }

void add_ops_command(CLI::App& app) {
  auto* ops_cmd = app.add_subcommand("ops", "List the ops and check them against their references");
  ops_cmd->require_subcommand(1);
  ops_cmd->add_subcommand("list", "Ops x backends available here")->callback(list_ops);

  auto* check = ops_cmd->add_subcommand("check", "Run every op on every available backend against the reference");
  static std::vector<std::string> backends, dtypes, only;
  static uint64_t seed = std::random_device{}();
  check->add_option("--backend", backends, "Backends to check (default: tile-cuda where there is a GPU, and tile-host)");
  check->add_option("--dtype", dtypes, "Dtypes to check: f32, f16, bf16 (default: all)");
  check->add_option("--op", only, "Only these ops");
  check->add_option("--seed", seed, "Random seed (default: a fresh one, printed)");
  check->callback([] {
    std::printf("seed %llu\n", (unsigned long long)seed);
    check_ops(backends, dtypes, only, seed);
  });
}

}  // namespace tessera::cli
