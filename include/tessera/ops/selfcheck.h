// Self-checks: each op run on a backend with fresh random inputs and compared with its reference.
// `tessera ops check` prints them as a table.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tessera/dispatch/dispatch.h"

namespace tessera::ops {

struct SelfCheckResult {
  double max_abs_error = 0;  // over every output element
  double tolerance = 0;      // the bound it is held to (abs + rel * |ref|, reported as the worst abs bound)
  bool passed = false;
  std::string shape;         // what was run, e.g. "bf16[37, 1000]"
};

struct SelfCheck {
  std::string op;
  // Runs the op on `backend` with tensors on `device` in `dtype`, against the reference.
  std::function<SelfCheckResult(dispatch::Backend backend, DType dtype, Device device, uint64_t seed)> run;
};

// Every op's self-checks.
std::vector<SelfCheck> all_self_checks();
// Registers every op with the dispatcher (ops otherwise register on first use).
void register_all();

}  // namespace tessera::ops
